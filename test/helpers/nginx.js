// Whether this machine can run the nginx family's tests (.ci/run unpacks an nginx with HTTP/3 and
// sets NGINX_PATH, so there they always run): false, or why not.
import { findNginx, nginxVersion } from '../../server/fronts/nginx.js';

const bin = findNginx();
export const nginxMissing = bin ? await nginxVersion(bin).then(() => false, (err) => err.message) : 'nginx is not installed (.ci/run puts Debian trixie\'s on bookworm; NGINX_PATH)';
