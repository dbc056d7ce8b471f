// Nothing but the browser itself holds the pipes playwright reads from it. Chromium's crash
// handler ran in a process group of its own with the browser's stdout and stderr; one that
// outlived its browser kept a test file's process alive after its last test (a CI run hung so).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { launchBrowser } from '../runner/browser.js';

const pids = () => readdirSync('/proc').filter((name) => /^\d+$/.test(name));
const read = (f, fallback) => {
  try {
    return f();
  } catch {
    return fallback; // a process gone meanwhile, or not ours to read
  }
};
const fdTargets = (pid) => read(() => readdirSync(`/proc/${pid}/fd`).map((fd) => read(() => readlinkSync(`/proc/${pid}/fd/${fd}`), '')), []);
// Chromium's children rewrite their command line into one string: read it as text.
const commandOf = (pid) => read(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '), '');

/** The processes other than this one holding the socket, with their command's name. */
const holders = (socket) => pids().filter((pid) => Number(pid) !== process.pid && fdTargets(pid).includes(socket)).map((pid) => ({ pid, command: commandOf(pid) }));

test("no process outside the browser's own holds its output pipes, and none holds them after close()", { skip: process.platform !== 'linux' && 'reads /proc', timeout: 60_000 }, async () => {
  const browser = await launchBrowser({ certs: { spkiSha256: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' }, servers: [] });
  let stdout;
  try {
    const ours = (command) => command.includes(`--user-data-dir=${browser.userDataDir} `);
    const main = pids().find((pid) => ours(commandOf(pid)) && !commandOf(pid).includes('--type='));
    assert.ok(main, 'the browser process');
    stdout = read(() => readlinkSync(`/proc/${main}/fd/1`), '');
    assert.match(stdout, /^(socket|pipe):/);
    assert.deepEqual(holders(stdout).filter(({ command }) => !ours(command)).map((h) => h.command.split(' ')[0]), []);
  } finally {
    await browser.close();
  }
  assert.deepEqual(holders(stdout).map((h) => h.command.split(' ')[0]), []);
});
