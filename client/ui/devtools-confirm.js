// The one-line question a page opened with ?devtools=<port> asks: any web page can link here with
// a port, and the lab connects to it only once the person says it is their Chrome's
// (client/lab/devtools-preset.js). npm run chrome's own Chrome opens no port and needs no question.

/**
 * @param {HTMLElement} line where the question shows while the lab waits for the person
 * @param {ReturnType<import('../lab/devtools-preset.js').createPresetApplier>} applier
 * @param {() => void} onConfirmed applies the form's preset again, now through the port
 */
export function askDevtoolsConfirmation(line, applier, onConfirmed) {
  if (!applier.port) return;
  const button = Object.assign(document.createElement('button'), { type: 'button', textContent: `Use DevTools port ${applier.port}` });
  line.append(
    `This address asks the lab to throttle through DevTools port ${applier.port}. `,
    button,
    ' only if you started that Chrome with that port yourself; until then the preset is a label.',
  );
  button.addEventListener('click', () => {
    applier.confirm();
    onConfirmed();
  });
  const show = () => (line.hidden = !applier.needsConfirmation);
  applier.onChange(show);
  show();
}
