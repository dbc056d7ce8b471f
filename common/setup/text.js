// Text the lab's pages, charts, reports and runner share, so each thing is said one way.

/**
 * "a, b or c": a list of choices in messages.
 * @param {readonly string[]} choices
 */
export const oneOfText = (choices) => (choices.length < 2 ? choices.join('') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`);

/**
 * Text made safe inside HTML, in elements and in quoted attributes.
 * @param {unknown} text
 */
export const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (c) => /** @type {Record<string, string>} */ ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/**
 * A size in MiB, to six significant digits: "0.1 MiB".
 * @param {number|string} mib
 */
export const formatMiB = (mib) => `${Number(Number(mib).toPrecision(6))} MiB`;

/**
 * The one label of a run's settings, for titles, subtitles, footers and the history: "100 × 0.1 MiB · delay 10 ms".
 * @param {{ requests: number, sizeMiB: number, delayMs: number }} s
 */
export const settingsLabel = (s) => `${Number(s.requests).toLocaleString('en-US')} × ${formatMiB(s.sizeMiB)} · delay ${s.delayMs} ms`;
