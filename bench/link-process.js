// The lab link alone in its own process, for `npm run bench:link`: a twin port in front of
// 127.0.0.1:<targetPort> at a preset, answering 'cpu' with its CPU time and wall clock so the
// benchmark can tell what the link costs apart from the servers and the clients.
import { createLink } from '../server/link/link.js';
import { presetConditions } from '../server/path/conditions.js';

const [targetPort, presetId] = process.argv.slice(2);
const link = createLink();
link.set(presetConditions(presetId));
const relay = link.relayTo(Number(targetPort), '127.0.0.1');
relay.listen(0, '127.0.0.1', () => process.send({ port: relay.address().port }));
process.on('message', () => process.send({ ...process.cpuUsage(), wallMs: performance.now() }));
process.on('disconnect', () => process.exit(0));
