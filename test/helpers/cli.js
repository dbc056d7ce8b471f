// Running h2lab's commands as a person does, for the tests: a child process in the repository,
// without the caller's H2LAB_* variables, its stderr as lines. Children still running when a
// test file ends are killed.
import { after } from 'node:test';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('H2LAB_')));

/** stderr's non-empty lines (spdy's deprecation warnings are silenced by the servers themselves). */
export const ownLines = (stderr) => stderr.split('\n').filter((l) => l.trim() !== '');

/** Runs a script to its end: { status, stdout, stderr, lines (own stderr lines) }. */
export function runScript(script, args = [], { env = {}, timeout, nodeArgs = [] } = {}) {
  const r = spawnSync(process.execPath, [...nodeArgs, script, ...args], { cwd: repoRoot, env: { ...cleanEnv(), ...env }, encoding: 'utf8', timeout });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, lines: ownLines(r.stderr) };
}

const children = new Set();
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts a script; `exited` resolves { code, signal, at } and stdout/stderr accumulate as text. */
export function startScript(script, args = [], { env = {} } = {}) {
  const child = spawn(process.execPath, [script, ...args], { cwd: repoRoot, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const run = { child, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (c) => (run.stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (run.stderr += c));
  run.exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, at: performance.now() })));
  return run;
}

/** Resolves when the child exits; a hang kills it and fails instead of blocking the suite. */
export async function exitOf(run, timeoutMs = 15_000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      reject(new Error(`no exit within ${timeoutMs} ms; stdout: ${run.stdout} stderr: ${run.stderr}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([run.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until the child's output satisfies `ready`, or fails (and kills it) after the timeout. */
export async function waitFor(run, ready, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!ready(run)) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}; stderr: ${run.stderr}`);
    if (Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`not ready within ${timeoutMs} ms; stdout: ${run.stdout} stderr: ${run.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
