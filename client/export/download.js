// Saves a Blob or text as a file through a temporary link, as browsers allow without a server.
/**
 * @param {string} filename
 * @param {Blob|string} content
 * @param {string} [type] of text content
 */
export function download(filename, content, type = 'application/octet-stream') {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file name stem for a result: h2lab-<id>. @param {{ id: string }} result */
export const fileStem = (result) => `h2lab-${result.id}`;
