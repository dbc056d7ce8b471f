// --repeats auto, --max-repeats, --budget and --aim: rounds until decided (common/stats/until-decided.js), and
// a one-line error naming the flag and its bounds for every bad combination.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunnerArgs } from '../runner/args.js';
import { planExperiments } from '../runner/plan.js';

const parse = (argv) => parseRunnerArgs(argv, {}, new Date('2026-11-27T00:00:00Z'));

/** Asserts that argv is refused with one line that starts with `start` and holds every part. */
function refuses(argv, start, ...parts) {
  assert.throws(
    () => parse(argv),
    (err) => {
      assert.doesNotMatch(err.message, /\n/, 'one line');
      assert.ok(err.message.startsWith(start), `"${err.message}" starts with ${start}`);
      for (const part of parts) assert.ok(err.message.includes(part), `"${err.message}" holds ${part}`);
      return true;
    },
    argv.join(' '),
  );
}

describe('parseRunnerArgs: --repeats auto', () => {
  it('reads the cap and the budget; every point plans for the cap', () => {
    const o = parse(['--repeats', 'auto', '--max-repeats', '12', '--budget', '30m']);
    assert.deepEqual(o.untilDecided, { maxRepeats: 12, budgetS: 1800, aimPercent: null });
    assert.equal(o.settings.repeats, 12);
    assert.deepEqual(parse(['--repeats', 'AUTO', '--max-repeats', '4']).untilDecided, { maxRepeats: 4, budgetS: null, aimPercent: null });
    assert.deepEqual(parse(['--repeats', 'auto', '--max-repeats', '8', '--budget', '90s']).untilDecided.budgetS, 90);
    assert.deepEqual(parse(['--repeats', 'auto', '--max-repeats', '8', '--budget', '2h']).untilDecided.budgetS, 7200);
    assert.equal(parse(['--repeats', '5']).untilDecided, null);
  });

  it('plans the classic suite for the cap, grid 4 too', () => {
    const o = parse(['--suite', 'classic', '--repeats', 'auto', '--max-repeats', '16']);
    for (const e of planExperiments(o)) for (const p of e.points) assert.equal(p.settings.repeats, 16, `${e.id} ${p.label}`);
  });

  it('needs a cap of at least the first round, at most 100', () => {
    refuses(['--repeats', 'auto'], '--repeats: auto needs --max-repeats N', 'an integer from 4 to 100');
    refuses(['--repeats', 'auto', '--max-repeats', '-4'], '--max-repeats: needs a value: an integer from 4 to 100');
    for (const bad of ['3', '0', '101', 'ten', '6.5', '']) refuses(['--repeats', 'auto', '--max-repeats', bad], '--max-repeats: must be an integer from 4 to 100', 'first round', `got "${bad}"`);
  });

  it('takes --max-repeats and --budget only with auto', () => {
    refuses(['--max-repeats', '12'], '--max-repeats: only with --repeats auto');
    refuses(['--repeats', '10', '--budget', '30m'], '--budget: only with --repeats auto', '--repeats 10');
  });

  it('refuses a badly formed budget, naming the form and its bounds', () => {
    for (const bad of ['30', '1.5h', '0s', '169h', '2d', 'soon', '30 m']) {
      refuses(['--repeats', 'auto', '--max-repeats', '8', '--budget', bad], '--budget: must be a wall time such as 90s, 30m or 2h', 'from 1 s to 168 h', `got "${bad}"`);
    }
    refuses(['--repeats', 'auto', '--max-repeats', '8', '--budget'], '--budget: needs a value');
  });

  it('reads the difference aimed at, a whole % from 1 to 50, only with auto', () => {
    assert.equal(parse(['--repeats', 'auto', '--max-repeats', '20', '--aim', '10']).untilDecided.aimPercent, 10);
    for (const bad of ['0', '51', '7.5', 'ten', '-3', '']) {
      refuses(['--repeats', 'auto', '--max-repeats', '20', `--aim=${bad}`], '--aim: must be an integer from 1 to 50', "baseline's time", `got "${bad}"`);
    }
    refuses(['--repeats', '10', '--aim', '10'], '--aim: only with --repeats auto');
  });

  it('is not sharded, nor quick', () => {
    refuses(['--repeats', 'auto', '--max-repeats', '8', '--shard', '1/2'], '--repeats: auto cannot be sharded', 'fixed plan');
    refuses(['--suite', 'classic', '--quick', '--repeats', 'auto', '--max-repeats', '8'], '--quick: not with --repeats auto');
  });

  it('still refuses a bad --repeats, naming auto', () => {
    refuses(['--repeats', 'often'], '--repeats: must be', 'or auto');
  });
});
