// Which recording the lab's servers replay: the lab starts once with every replaying server's
// handler set to the stage (startLab's handlerFor), and a run puts a page's replay handlers on it
// before that page's loads, so one lab serves the pages of a folder of HARs one after another.
// A request while no page is on stage is a miss of an empty archive, like any unrecorded one.
import { emptyArchive } from './archive.js';
import { createReplayHandler } from './handler.js';

/**
 * @param {string[]} serverIds  the servers that replay; every other keeps the lab's handler
 */
export function createReplayStage(serverIds) {
  /** @type {Map<string, ReturnType<typeof createReplayHandler>>} */
  let current = new Map(serverIds.map((id) => [id, createReplayHandler({ serverId: id, archive: emptyArchive() })]));
  return {
    /**
     * startLab's hook: the stage in place of the lab's handler on the replaying servers.
     * @param {string} id @param {import('../http/handler.js').Handler} shared
     * @returns {import('../http/handler.js').Handler}
     */
    handlerFor: (id, shared) => (serverIds.includes(id) ? { handle: (ex) => /** @type {ReturnType<typeof createReplayHandler>} */ (current.get(id)).handle(ex), rawResponse: shared.rawResponse } : shared),
    /**
     * Puts a page's handlers on stage: one per replaying server.
     * @param {Map<string, ReturnType<typeof createReplayHandler>>} handlers
     */
    show(handlers) {
      const missing = serverIds.find((id) => !handlers.has(id));
      if (missing) throw new Error(`no replay handler for ${missing}`);
      current = handlers;
    },
  };
}
