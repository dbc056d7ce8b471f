// `npm run h2spec`: the HTTP/2 conformance suite (h2spec) against the lab's HTTP/2 servers.
// Starts a lab on free ports (without Caddy), runs h2spec over TLS against h2-spdy, h2-node and
// nginx-h2 (where an nginx with HTTP/3 is found),
// and prints per server the cases passed, failed and skipped, each failing case, and the cases
// that passed in the baseline (below) and fail now. Exits 1 when there is such a case, unless
// the baseline saw it vary between runs. h2spec is a development tool that no package registry
// ships: it is looked for in $H2SPEC_PATH, then on PATH.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readNumberArgs } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { freePorts, startLab } from '../server/lab.js';

const usage = `Usage: npm run h2spec -- [--runs N]
  --runs N   runs per server, to see cases that vary between runs (default 1)
h2spec is looked for in $H2SPEC_PATH, then on PATH.`;

// h2spec's timeout per case (-o, seconds) and the path it requests: it needs a 200 with a body
// of at least 5 bytes for its flow-control cases (0.001 MiB = 1,048 bytes), answered at once.
const timeoutS = 3;
const target = '/option?size=0.001';

// This machine's baseline (2026-11-22, h2spec 2.x built from source, Node 20.20.2, nginx 1.22.1), before the spdy guard enforced RFC 9113's stream
// states and header rules. Cases are h2spec's JUnit package and the case's place in it.
const baseline = {
  'h2-node': {
    passed: 134,
    failing: [
      'http2/5.1/5', 'http2/5.1/6', 'http2/5.1/8', 'http2/5.1/9', 'http2/5.1/11', 'http2/5.1/12', 'http2/5.1.1/2',
      'http2/6.1/2', 'http2/6.7/2', 'http2/6.9.1/2', 'http2/6.9.1/3', 'http2/8.1.2.1/3',
    ],
    // A race between the lab's immediate 405 to h2spec's POST and the malformed frame after it.
    varies: ['http2/6.9.1/3', 'http2/8.1/1', 'http2/8.1.2.1/3', 'http2/8.1.2.6/1', 'http2/8.1.2.6/2'],
  },
  'h2-spdy': {
    passed: 117,
    failing: [
      'http2/4.3/2', 'http2/5.1/2', 'http2/5.1/3', 'http2/5.1/6', 'http2/5.1/9', 'http2/5.1/12', 'http2/5.1.1/1',
      'http2/5.1.1/2', 'http2/6.2/1', 'http2/6.4/2', 'http2/6.9.2/2', 'http2/6.10/2', 'http2/8.1/1',
      'http2/8.1.2.1/1', 'http2/8.1.2.1/2', 'http2/8.1.2.1/3', 'http2/8.1.2.1/4', 'http2/8.1.2.2/1', 'http2/8.1.2.2/2',
      'http2/8.1.2.3/1', 'http2/8.1.2.3/2', 'http2/8.1.2.3/3', 'http2/8.1.2.3/4', 'http2/8.1.2.3/5', 'http2/8.1.2.3/6',
      'http2/8.1.2.3/7', 'http2/8.1.2.6/1', 'http2/8.1.2.6/2', 'hpack/4.2/1',
    ],
    varies: [],
  },
  // nginx 1.26.3 (Debian trixie's, unpacked; 2026-11-28, three runs alike): 19 answer a malformed
  // request with a response (often its 400 page) where RFC 9113 asks for a stream or connection
  // error, six ignore a frame on an idle or closed stream (h2spec times out), and generic/4/4 (a
  // POST with trailers) closes the connection.
  'nginx-h2': {
    passed: 120,
    failing: [
      'generic/4/4', 'http2/4.2/2', 'http2/4.2/3', 'http2/5.1/1', 'http2/5.1/2', 'http2/5.1/3', 'http2/5.1/8', 'http2/5.1/11',
      'http2/6.4/2', 'http2/8.1.2/1', 'http2/8.1.2.1/1', 'http2/8.1.2.1/2', 'http2/8.1.2.1/4', 'http2/8.1.2.2/1', 'http2/8.1.2.2/2',
      'http2/8.1.2.3/1', 'http2/8.1.2.3/2', 'http2/8.1.2.3/3', 'http2/8.1.2.3/4', 'http2/8.1.2.3/5', 'http2/8.1.2.3/6', 'http2/8.1.2.3/7',
      'http2/8.1.2.6/1', 'http2/8.1.2.6/2', 'hpack/4.2/1', 'hpack/5.2/1',
    ],
    varies: [],
  },
};

const isFile = (file) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;

/** The h2spec binary, or an error that says where it was looked for. */
function findH2spec(env) {
  if (env.H2SPEC_PATH) {
    if (!isFile(env.H2SPEC_PATH)) throw new Error(`H2SPEC_PATH points to a missing file: ${env.H2SPEC_PATH}`);
    return env.H2SPEC_PATH;
  }
  const onPath = (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'h2spec'));
  const found = onPath.find(isFile);
  if (!found) throw new Error('h2spec not found: build it from github.com/summerwind/h2spec (go build ./cmd/h2spec) or take a release binary, then put it on PATH or set H2SPEC_PATH');
  return found;
}

const unescapeXml = (text) =>
  text.replace(/&(#(\d+)|lt|gt|amp|quot|apos);/g, (_, entity, code) => (code ? String.fromCharCode(Number(code)) : { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[entity]));

/** h2spec's JUnit report as [{ id: 'http2/5.1/2', title, outcome: 'passed' | 'failed' | 'skipped' }]. */
function parseJunit(xml) {
  const cases = [];
  for (const [, pkg, body] of xml.matchAll(/<testsuite\b[^>]*\bpackage="([^"]+)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
    let n = 0;
    for (const [, title, inner] of body.matchAll(/<testcase\b[^>]*\bclassname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)) {
      n += 1;
      const outcome = /<(error|failure)\b/.test(inner) ? 'failed' : /<skipped\b/.test(inner) ? 'skipped' : 'passed';
      cases.push({ id: `${pkg}/${n}`, title: unescapeXml(title), outcome });
    }
  }
  return cases;
}

async function h2spec(bin, port, report) {
  const child = spawn(bin, ['-t', '-k', '-h', '127.0.0.1', '-p', String(port), '-o', String(timeoutS), '-P', target, '-j', report], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  // h2spec exits 1 when a case fails; only a missing report means it did not run.
  if (!fs.existsSync(report)) throw new Error(`h2spec exited ${code} without a report: ${stderr.trim().split('\n')[0]}`);
  return parseJunit(fs.readFileSync(report, 'utf8'));
}

async function main({ runs }) {
  const bin = findH2spec(process.env);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-h2spec-'));
  // Node's two and nginx's (where an nginx is found); Caddy's HTTP/2 is Go's, not measured here.
  const lab = await startLab({ ...freePorts, noCaddy: true });
  let regressions = 0;
  try {
    console.log(`h2spec ${bin}: -t -k -o ${timeoutS} -P '${target}', against a lab on free ports, ${runs} run(s) per server`);
    for (const server of lab.running.filter((s) => s.protocol === 'h2' && s.available && s.id in baseline)) {
      const { port } = server;
      const base = baseline[server.id];
      const failedIn = new Map(); // id → { title, runs }
      for (let run = 1; run <= runs; run++) {
        const cases = await h2spec(bin, port, path.join(dir, `${server.id}-${run}.xml`));
        const count = (outcome) => cases.filter((c) => c.outcome === outcome).length;
        console.log(`${server.id}${runs > 1 ? ` run ${run}` : ''}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped of ${cases.length} (baseline: ${base.passed} passed)`);
        for (const c of cases.filter((one) => one.outcome === 'failed')) {
          const seen = failedIn.get(c.id) ?? { title: c.title, runs: 0 };
          seen.runs += 1;
          failedIn.set(c.id, seen);
        }
      }
      for (const [id, { title, runs: failed }] of failedIn) {
        const times = runs > 1 ? ` [${failed} of ${runs} runs]` : '';
        let note = '';
        if (!base.failing.includes(id)) {
          if (base.varies.includes(id)) note = '  (passed in the baseline, which saw it vary)';
          else {
            note = '  << PASSED IN THE BASELINE';
            regressions += 1;
          }
        }
        console.log(`  × ${id}${times} ${title}${note}`);
      }
    }
    console.log(regressions ? `${regressions} case(s) that passed in the baseline fail now.` : 'No case that passed in the baseline fails now.');
  } finally {
    await lab.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return regressions ? 1 : 0;
}

const numbers = { runs: { min: 1, max: 20, integer: true, default: 1 } };
process.exitCode = await runCli({ name: 'h2spec', usage, parse: (args) => readNumberArgs(args, numbers), run: main });
