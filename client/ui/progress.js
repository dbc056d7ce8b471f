// The progress line: "repeat 3/10 · HTTP/2 (spdy)" and a bar over all requests of the experiment.
export function createProgress(box) {
  const bar = box.querySelector('progress');
  const text = box.querySelector('[role=status]');
  return {
    show() {
      box.hidden = false;
      bar.value = 0;
    },
    update({ done, total, phase }) {
      bar.max = total || 1;
      bar.value = done;
      text.textContent = `${phase} · ${done.toLocaleString()} / ${total.toLocaleString()} requests`;
    },
    finish(message) {
      text.textContent = message;
    },
  };
}
