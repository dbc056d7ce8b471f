// Whether this machine can run the Caddy family's tests: CI installs Caddy (.ci/run), so there they always run.
import { findCaddy } from '../../server/fronts/caddy.js';

export const caddyMissing = findCaddy() ? false : 'Caddy is not installed (apt-get install caddy); .ci/run installs it';
