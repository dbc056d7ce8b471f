// A network of the lab (common/networks.js) that is gone or does not answer: the packet network's
// emulator exited or hangs. The control API answers it as 503 network-failed, naming the cause;
// the lab itself goes on.
import { H2labError } from '../common/errors.js';

export class NetworkFailed extends H2labError {
  /**
   * @param {import('../common/networks.js').NetworkId} networkId
   * @param {string} message
   */
  constructor(networkId, message) {
    super('network-failed', message);
    this.networkId = networkId;
  }
}
