// What a run writes is the lab's alone (issue 40, item 1): the capture folder is private and
// checked (server/captures.js, server/private-files.js), capture files and TLS key copies are
// opened exclusively without following links, 0600 (server/packet/capture.js), and a run's name
// cannot leave its folder. The review's reproduction: another user made <tmp>/h2lab-captures
// (0777) first and planted links named like the next capture; a root-owned 0600 file began with
// the pcapng magic after one capture. The captures here run through a fake network that writes
// with the emulator's own createCapture, in this process: no packet network needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCaptures } from '../server/captures.js';
import { createCapture } from '../server/packet/capture.js';
import { evidencePaths } from '../runner/output/evidence.js';
import { exitCodeOf } from '../cli/run.js';
import { ipv4 } from './packet/corpus.js';

const nobody = 65534;
const notRoot = process.getuid?.() !== 0 && 'plants files as nobody (uid 65534), which needs root';
const notLinux = process.platform !== 'linux' && 'uids and modes as Linux has them';
const asNobody = notRoot || notLinux || false;

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-private-'));
const modeOf = (file) => (fs.statSync(file).mode & 0o7777).toString(8);

/** A folder like /tmp (root's, 1777) another user can make folders and links in. */
function sharedTmp(t) {
  const dir = scratch();
  fs.chmodSync(dir, 0o1777);
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs a command as nobody; throws unless it succeeds. */
function nobodyRuns(command, ...args) {
  const r = spawnSync(command, args, { uid: nobody, gid: nobody, encoding: 'utf8' });
  assert.equal(r.status, 0, `${command} ${args.join(' ')} as nobody: ${r.stderr}`);
}

/** A root-owned 0600 file that must stay as it is. */
function victim(t) {
  const dir = scratch();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'victim');
  fs.writeFileSync(file, 'secret\n', { mode: 0o600 });
  return file;
}

/** A network that captures as the packet network's emulator does (createCapture), one packet each way. */
function fakeNetwork() {
  /** @type {ReturnType<typeof createCapture> | null} */
  let capture = null;
  const packet = ipv4({ source: 443, destination: 50000, payload: 200 });
  return {
    capture: {
      async start(stem, whole) {
        capture?.stop();
        capture = createCapture({ stem, whole });
        capture.sent(packet, 'down', 'onLink');
        capture.received(packet, 'down');
      },
      async stop() {
        const summary = capture.stop();
        capture = null;
        return summary;
      },
    },
  };
}

/** Runs one capture named `name`; its answer and the stop's. */
async function captureOnce(captures, name = 'run') {
  const started = await captures.start(fakeNetwork(), { name });
  return { started, stopped: await captures.stop() };
}

/** os.tmpdir() is `dir` (TMPDIR) for the rest of the test. */
function tmpdirIs(t, dir) {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  t.after(() => (before === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = before)));
}

test('the default capture folder is new and private: a folder and links another user planted under the old name are not used, the victim unchanged', { skip: asNobody }, async (t) => {
  const tmp = sharedTmp(t);
  tmpdirIs(t, tmp);
  const target = victim(t);
  const planted = path.join(tmp, 'h2lab-captures');
  nobodyRuns('mkdir', '-m', '0777', planted);
  for (const suffix of ['sent.pcapng', 'received.pcapng', 'keys.log']) nobodyRuns('ln', '-s', target, path.join(planted, `run.${suffix}`));

  const { started, stopped } = await captureOnce(createCaptures());
  assert.equal(fs.readFileSync(target, 'utf8'), 'secret\n', 'the file behind the planted link is unchanged');
  const folder = path.dirname(started.stem);
  assert.notEqual(folder, planted);
  assert.equal(fs.statSync(folder).uid, process.getuid());
  assert.equal(modeOf(folder), '700');
  assert.equal(stopped.packets.sent, 1);
});

test("a capture folder another user made (0777) is refused in one line naming it, and nothing is written in it", { skip: asNobody }, async (t) => {
  const tmp = sharedTmp(t);
  const theirs = path.join(tmp, 'theirs');
  nobodyRuns('mkdir', '-m', '0777', theirs);
  await assert.rejects(captureOnce(createCaptures({ dir: theirs })), (err) => {
    assert.equal(err.code, 'capture-refused');
    assert.match(err.message, new RegExp(`^[^\n]*${theirs}[^\n]*$`));
    return true;
  });
  assert.deepEqual(fs.readdirSync(theirs), []);
});

test('a folder of ours inside one another user may write is refused: they could move it and put theirs in its place', { skip: asNobody }, async (t) => {
  const open = path.join(sharedTmp(t), 'open');
  nobodyRuns('mkdir', '-m', '0777', open);
  const mine = path.join(open, 'mine');
  fs.mkdirSync(mine, { mode: 0o700 });
  await assert.rejects(captureOnce(createCaptures({ dir: mine })), /capture folder .*open.*writable by other users|belongs to uid 65534/);
  assert.deepEqual(fs.readdirSync(mine), []);
});

test('a capture folder that is a link, or writable by others, is refused; one of ours that no one else writes is taken', async (t) => {
  const dir = scratch();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const real = path.join(dir, 'real');
  fs.mkdirSync(real, { mode: 0o700 });
  const link = path.join(dir, 'link');
  fs.symlinkSync(real, link);
  await assert.rejects(captureOnce(createCaptures({ dir: link })), /capture folder .*link is a symbolic link/);
  const open = path.join(dir, 'open');
  fs.mkdirSync(open);
  fs.chmodSync(open, 0o777);
  await assert.rejects(captureOnce(createCaptures({ dir: open })), /capture folder .*open is writable by other users \(mode 777/);
  assert.deepEqual([fs.readdirSync(real), fs.readdirSync(open)], [[], []]);
  const { started } = await captureOnce(createCaptures({ dir: real }));
  assert.equal(path.dirname(started.stem), real);
});

test("a folder its group may write is taken where the group is this user's own (umask 002 on Debian's and Ubuntu's accounts), refused where it is another's", { skip: asNobody }, async (t) => {
  const dir = scratch();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ours = path.join(dir, 'ours');
  fs.mkdirSync(ours);
  fs.chmodSync(ours, 0o770); // root's group: root's alone
  const { started } = await captureOnce(createCaptures({ dir: ours }));
  assert.equal(path.dirname(started.stem), ours);
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  fs.chownSync(shared, 0, nobody); // nogroup: nobody's, sync's, _apt's
  fs.chmodSync(shared, 0o770);
  await assert.rejects(captureOnce(createCaptures({ dir: shared })), /capture folder .*shared is writable by other users \(mode 770/);
  assert.deepEqual(fs.readdirSync(shared), []);
});

test("in a user namespace of its own (the packet network's, run by a user who is not root), the default folder is taken: /tmp's owner shows as the overflow uid there", { skip: asNobody }, (t) => {
  const script = `
    import { makePrivateDir, privateDirProblem } from ${JSON.stringify(new URL('../server/private-files.js', import.meta.url).href)};
    import fs from 'node:fs';
    const dir = makePrivateDir('h2lab-private-ns-');
    console.log(JSON.stringify({ tmpOwner: fs.statSync('/tmp').uid, problem: privateDirProblem(dir) }));
    fs.rmdirSync(dir);`;
  const r = spawnSync('unshare', ['-Ur', process.execPath, '--input-type=module', '-e', script], { uid: nobody, gid: nobody, encoding: 'utf8', cwd: '/' });
  if (r.status !== 0) return t.skip(`no user namespace for nobody here: ${(r.stderr || r.error?.message || '').trim()}`);
  assert.deepEqual(JSON.parse(r.stdout), { tmpOwner: 65534, problem: null });
});

test("a capture file's name that exists, or a link by it, is refused: never truncated, never followed", (t) => {
  const dir = scratch();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const earlier = path.join(dir, 'run.sent.pcapng');
  fs.writeFileSync(earlier, 'an earlier run');
  assert.throws(() => createCapture({ stem: path.join(dir, 'run'), whole: false }), /EEXIST/);
  assert.equal(fs.readFileSync(earlier, 'utf8'), 'an earlier run');
  const target = path.join(dir, 'target');
  fs.writeFileSync(target, 'kept');
  fs.symlinkSync(target, path.join(dir, 'linked.received.pcapng'));
  assert.throws(() => createCapture({ stem: path.join(dir, 'linked'), whole: false }), /EEXIST|ELOOP/);
  assert.equal(fs.readFileSync(target, 'utf8'), 'kept');
  assert.equal(fs.existsSync(path.join(dir, 'linked.sent.pcapng')), false, 'the file opened first is removed again');
});

test("a run's name with no letter or digit, '..' or a separator is refused before anything is written", async (t) => {
  const dir = scratch();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const captures = createCaptures({ dir });
  for (const name of ['.', '..', '-', '...', 'a..b', 'a/b', '../x', 'a\\b', '', 'x'.repeat(161)]) {
    await assert.rejects(captures.start(fakeNetwork(), { name }), (err) => err.field === 'name' && err.code === 'invalid-field', JSON.stringify(name));
  }
  assert.deepEqual(fs.readdirSync(dir), []);
  assert.deepEqual(fs.readdirSync(path.dirname(dir)).filter((f) => f.startsWith(`${path.basename(dir)}.`)), [], 'nothing beside the folder');
});

test('capture files and the key copy are 0600, the default folder 0700', { skip: notLinux }, async (t) => {
  const tmp = scratch();
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  tmpdirIs(t, tmp);
  const keyLogFile = path.join(tmp, 'keys.log');
  fs.writeFileSync(keyLogFile, 'CLIENT_RANDOM before\n');
  const captures = createCaptures({ keyLogFile });
  const started = await captures.start(fakeNetwork(), { name: 'run' });
  fs.appendFileSync(keyLogFile, 'CLIENT_RANDOM during\n');
  const { files } = await captures.stop();
  assert.equal(modeOf(path.dirname(started.stem)), '700');
  assert.deepEqual([files.sent, files.received, files.keys].map(modeOf), ['600', '600', '600']);
  assert.equal(fs.readFileSync(files.keys, 'utf8'), 'CLIENT_RANDOM during\n');
});

test("the runner's captures/ is 0700 with its key log made 0600 before the browser writes it; one another user made is refused (exit 2)", { skip: notLinux }, (t) => {
  const out = path.join(scratch(), 'out');
  t.after(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
  const paths = evidencePaths({ out, capture: { whole: false }, netlog: false });
  assert.equal(modeOf(paths.captureDir), '700');
  assert.equal(modeOf(paths.keyLogFile), '600');
  fs.appendFileSync(paths.keyLogFile, 'CLIENT_RANDOM a\n');
  assert.deepEqual(evidencePaths({ out, capture: { whole: false }, netlog: false }), paths, 'the same --out again keeps the key log');
  assert.equal(fs.readFileSync(paths.keyLogFile, 'utf8'), 'CLIENT_RANDOM a\n');

  if (asNobody) return t.diagnostic(`the other user's captures/ not tried: ${asNobody}`);
  const shared = path.join(sharedTmp(t), 'out');
  nobodyRuns('mkdir', '-m', '0777', shared);
  nobodyRuns('mkdir', '-m', '0777', path.join(shared, 'captures'));
  assert.throws(() => evidencePaths({ out: shared, capture: { whole: false }, netlog: false }), (err) => {
    assert.equal(exitCodeOf(err), 2);
    assert.match(err.message, /^--out: the capture folder .*captures (belongs to uid 65534|is writable)[^\n]*$/);
    return true;
  });
  assert.deepEqual(fs.readdirSync(path.join(shared, 'captures')), []);
});
