// Finished runs kept in the browser (IndexedDB), so a result survives a reload and can be
// compared later. A whole result can hold hundreds of thousands of request records, so the
// history list reads a second store of light entries written in the same transaction.
import { openDB } from 'idb';

const dbName = 'h2lab';
const version = 1;

/** @typedef {import('../../common/report/result.js').Result} Result */

/**
 * @typedef {object} HistoryEntry  the light copy of a result the history list reads
 * @property {string} id
 * @property {string} startedAt
 * @property {Result['settings']} settings
 * @property {Result['summary']} summary
 * @property {Result['comparisons']} comparisons
 * @property {Result['environment']['preset']|null} preset
 */

/**
 * @typedef {{ results: { key: string, value: Result },
 *   entries: { key: string, value: HistoryEntry, indexes: { startedAt: string } } }} Schema  the database's two stores
 */

/** @type {Promise<import('idb').IDBPDatabase<Schema>>|undefined} */
let opening; // opened on first use, not at import: the headless runner and tests import freely

function db() {
  opening ??= openDB(dbName, version, {
    upgrade(database) {
      database.createObjectStore('results', { keyPath: 'id' });
      database.createObjectStore('entries', { keyPath: 'id' }).createIndex('startedAt', 'startedAt');
    },
  });
  return opening;
}

/** @type {(result: Result) => HistoryEntry} */
const entryOf = (result) => ({
  id: result.id,
  startedAt: result.startedAt,
  settings: result.settings,
  summary: result.summary,
  comparisons: result.comparisons,
  preset: result.environment?.preset ?? null,
});

/** Stores (or replaces) a finished result. @param {Result} result @returns {Promise<string>} its id */
export async function saveResult(result) {
  const tx = (await db()).transaction(['results', 'entries'], 'readwrite');
  await Promise.all([tx.objectStore('results').put(result), tx.objectStore('entries').put(entryOf(result)), tx.done]);
  return result.id;
}

/** @returns {Promise<HistoryEntry[]>} newest first */
export async function listResults() {
  const oldestFirst = await (await db()).getAllFromIndex('entries', 'startedAt');
  return oldestFirst.reverse();
}

/** @param {string} id @returns {Promise<Result|undefined>} */
export async function loadResult(id) {
  return (await db()).get('results', id);
}

/** @param {string} id */
export async function deleteResult(id) {
  const tx = (await db()).transaction(['results', 'entries'], 'readwrite');
  await Promise.all([tx.objectStore('results').delete(id), tx.objectStore('entries').delete(id), tx.done]);
}
