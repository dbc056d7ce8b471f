// A network of the lab (common/setup/networks.js) that is gone or does not answer: the packet network's
// emulator exited or hangs. The control API answers it as 503 network-failed, naming the cause;
// the lab itself goes on.
import { H2labError } from '../common/setup/errors.js';

export class NetworkFailed extends H2labError {
  /**
   * @param {import('../common/setup/networks.js').NetworkId} networkId
   * @param {string} message
   */
  constructor(networkId, message) {
    super('network-failed', message);
    this.networkId = networkId;
  }
}
