// The progress line: "repeat 3/10 · HTTP/2 (spdy)" and a bar over all requests of the experiment.
/** @param {HTMLElement} box  index.html's #progress, with its bar and its status line */
export function createProgress(box) {
  const bar = /** @type {HTMLProgressElement} */ (box.querySelector('progress'));
  const text = /** @type {HTMLElement} */ (box.querySelector('[role=status]'));
  return {
    show() {
      box.hidden = false;
      bar.value = 0;
    },
    /** @param {import('../lab/engine.js').Progress} p */
    update({ done, total, phase }) {
      bar.max = total || 1;
      bar.value = done;
      text.textContent = `${phase} · ${done.toLocaleString()} / ${total.toLocaleString()} requests`;
    },
    /** @param {string} message */
    finish(message) {
      text.textContent = message;
    },
  };
}
