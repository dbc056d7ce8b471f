// Finished runs kept in IndexedDB: reopen, delete, and compare two side by side.
import { deleteResult, listResults, loadResult } from '../history/store.js';
import { presetById } from '../../common/setup/presets.js';
import { serverIds, serverLabel } from '../../common/setup/servers.js';
import { ratioWithVerdict, verdictText } from '../../common/stats/stats.js';
import { settingsLabel } from '../../common/setup/text.js';

/** @typedef {import('../history/store.js').HistoryEntry} HistoryEntry */

/** @param {HistoryEntry['settings']} s */
const setup = (s) =>
  `${settingsLabel(s)} · ${s.repeats} repeats · ${s.connections} · ${presetById(s.preset)?.label ?? s.preset}`;

/**
 * @param {{ table: HTMLTableElement, compareButton: HTMLButtonElement, comparisonBox: HTMLElement,
 *   onOpen: (result: import('../../common/report/result.js').Result|undefined) => void }} o  onOpen: a stored result to show
 * @returns {() => Promise<void>} refreshes the list
 */
export function createHistoryView({ table, compareButton, comparisonBox, onOpen }) {
  const tbody = /** @type {HTMLTableSectionElement} */ (table.querySelector('tbody'));
  // The light entries hold all a comparison shows; whole results can be hundreds of MB.
  /** @type {Map<string, HistoryEntry>} */
  let entriesById = new Map();

  async function refresh() {
    const entries = await listResults();
    entriesById = new Map(entries.map((e) => [e.id, e]));
    tbody.replaceChildren(
      ...entries.map((e) => {
        const tr = document.createElement('tr');
        const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: e.id });
        box.setAttribute('aria-label', `compare run of ${e.startedAt}`);
        tr.insertCell().append(box);
        tr.insertCell().textContent = new Date(e.startedAt).toLocaleString();
        tr.insertCell().textContent = setup(e.settings);
        tr.insertCell().textContent = e.comparisons.map((c) => `${serverLabel(c.server)} ${ratioWithVerdict(c)}`).join(' · ') || '–';
        const actions = tr.insertCell();
        const when = new Date(e.startedAt).toLocaleString();
        const open = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Open' });
        open.setAttribute('aria-label', `Open the run of ${when}`);
        open.addEventListener('click', async () => onOpen(await loadResult(e.id)));
        const del = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Delete' });
        del.setAttribute('aria-label', `Delete the run of ${when}`);
        del.addEventListener('click', async () => {
          await deleteResult(e.id);
          await refresh();
        });
        actions.append(open, ' ', del);
        return tr;
      }),
    );
    compareButton.disabled = true;
  }

  table.addEventListener('change', () => {
    compareButton.disabled = table.querySelectorAll('input:checked').length !== 2;
  });

  compareButton.addEventListener('click', () => {
    const ids = [.../** @type {NodeListOf<HTMLInputElement>} */ (table.querySelectorAll('input:checked'))].map((b) => b.value);
    // The button is enabled with two ticked, each an entry of the list.
    const [a, b] = ids.map((id) => /** @type {HistoryEntry} */ (entriesById.get(id)));
    const t = document.createElement('table');
    t.createCaption().textContent = 'Two runs side by side: median total time (ms) and verdicts';
    const head = t.createTHead().insertRow();
    for (const text of ['', setup(a.settings), setup(b.settings)]) head.append(Object.assign(document.createElement('th'), { textContent: text }));
    const body = t.createTBody();
    /** @type {(label: string, fa: string, fb: string) => void} */
    const row = (label, fa, fb) => {
      const tr = body.insertRow();
      for (const text of [label, fa, fb]) tr.insertCell().textContent = text;
    };
    row('Started', new Date(a.startedAt).toLocaleString(), new Date(b.startedAt).toLocaleString());
    for (const id of serverIds) {
      /** @param {HistoryEntry} r */
      const m = (r) => {
        const sum = r.summary[id];
        if (!sum?.n) return '–';
        return `${/** @type {number} with n */ (sum.median).toFixed(1)}${sum.ci95 ? ` (${sum.ci95.map((x) => x.toFixed(1)).join('–')})` : ''}`;
      };
      if (a.summary[id]?.n || b.summary[id]?.n) row(serverLabel(id), m(a), m(b));
    }
    /** @param {HistoryEntry} r */
    const v = (r) => r.comparisons.map(verdictText).join('\n') || '–';
    row('Verdicts', v(a), v(b));
    comparisonBox.replaceChildren(t);
  });

  return refresh;
}
