// Every command reads its options through cli/options.js: a repeated flag and a number that is
// not a plain decimal (0x3) are refused before anything starts, with one line naming the option
// and exit code 2; the two page commands take the same page flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScript } from './helpers/cli.js';

// [script, its message prefix, a number option, a string option]
const commands = [
  ['server/index.js', 'h2lab:', '--max-streams', '--host'],
  ['runner/commands/experiments.js', 'h2lab experiments:', '--repeats', '--preset'],
  ['runner/commands/page-loads.js', 'h2lab page-loads:', '--repeats', '--preset'],
  ['runner/commands/push-lab.js', 'h2lab push-lab:', '--repeats', '--preset'],
  ['bench/server.js', 'h2lab bench:server:', '--rounds', null],
  ['bench/lab.js', 'h2lab bench:lab:', '--repeats', null],
  ['bench/link.js', 'h2lab bench:link:', '--rounds', null],
  ['bench/runner.js', 'h2lab bench:runner:', '--rounds', null],
  ['server/certs-cli.js', 'h2lab certs:', null, '--dir'],
  ['runner/commands/open-chrome.js', 'h2lab chrome:', null, '--url'],
  ['runner/commands/record.js', 'h2lab record:', null, '--out'],
];

for (const [script, prefix, numberFlag, stringFlag] of commands) {
  const refused = (args, mentions) => {
    const r = runScript(script, args, { timeout: 20_000 });
    assert.equal(r.status, 2, `${script} ${args.join(' ')}: exit ${r.status}; stderr: ${r.stderr}`);
    assert.equal(r.lines.length, 1, `one line: ${JSON.stringify(r.lines)}`);
    assert.ok(r.lines[0].startsWith(`${prefix} `), r.lines[0]);
    for (const text of mentions) assert.ok(r.lines[0].includes(text), `"${r.lines[0]}" mentions ${text}`);
    assert.equal(r.stdout, '');
  };
  if (numberFlag) {
    test(`${script}: ${numberFlag} 0x3 is refused in one line, exit 2`, () => refused([numberFlag, '0x3'], [`${numberFlag}:`, '"0x3"']));
  }
  const flag = numberFlag ?? stringFlag;
  const value = numberFlag ? '2' : 'x';
  test(`${script}: ${flag} given twice is refused in one line, exit 2`, () => refused([flag, value, flag, value], [`${flag}: is given more than once`]));
}

test('the two page commands take the same page flags', () => {
  const helps = ['runner/commands/page-loads.js', 'runner/commands/push-lab.js'].map((script) => runScript(script, ['--help']));
  for (const help of helps) {
    assert.equal(help.status, 0);
    for (const flag of ['--assets', '--size-kib', '--think-ms', '--repeats', '--preset']) assert.match(help.stdout, new RegExp(`${flag}\\b`));
  }
});

test('npm run record refuses no URL, a URL that is not https:, and an unknown flag, each in one line, exit 2', () => {
  for (const [args, mention] of [[[], 'give one or more pages'], [['http://a.example/'], 'must be an https: URL, got "http://a.example/"'], [['https://a.example/', '--bogus'], '--bogus: unknown option']]) {
    const r = runScript('runner/commands/record.js', args, { timeout: 20_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.deepEqual(r.lines.length, 1, r.stderr);
    assert.ok(r.lines[0].startsWith('h2lab record: ') && r.lines[0].includes(mention), r.lines[0]);
    assert.equal(r.stdout, '');
  }
});
