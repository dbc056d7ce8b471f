// The runner's command line: defaults, every option, and a one-line error naming the option for
// every kind of bad input.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cannotCarry, presetById, presets } from '../common/setup/presets.js';
import { serverIds } from '../common/setup/servers.js';
import { defaults } from '../common/setup/settings.js';
import { planSweep } from '../common/setup/sweep.js';
import { parseRunnerArgs, runnerUsage } from '../runner/args.js';
import { planExperiments } from '../runner/plan.js';
import { lossStreamSeeds, runLossSeed } from '../common/setup/seeds.js';
import { createLoss } from '../server/path/loss.js';

const now = new Date('2026-11-21T15:04:05.678Z');
const parse = (argv, env = {}) => parseRunnerArgs(argv, env, now);
const ids = (list) => list.map((p) => p.id);

/** Asserts that argv is refused with one line that starts with `start` and holds `part` (text or RegExp). */
function refuses(argv, start, part = '') {
  assert.throws(
    () => parse(argv),
    (err) => {
      assert.ok(err instanceof Error);
      assert.doesNotMatch(err.message, /\n/, 'one line');
      assert.ok(err.message.startsWith(start), `"${err.message}" starts with ${start}`);
      if (part instanceof RegExp) assert.match(err.message, part);
      else assert.ok(err.message.includes(part), `"${err.message}" holds ${part}`);
      return true;
    },
  );
}

describe('parseRunnerArgs: defaults', () => {
  it("takes the lab's settings, no throttling, no sweep, and a timestamped directory", () => {
    assert.deepEqual(parse([]), {
      help: false,
      settings: { ...defaults, servers: [...defaults.servers] },
      presets: [presetById('no-throttling')],
      sweep: null,
      suite: null,
      quick: false,
      out: path.resolve('results/2026-11-21T15-04-05'),
      json: false,
      quiet: false,
      headed: false,
      servers: true,
      serversGiven: false,
      ui: null,
      browserUrl: null,
      networks: ['devtools'],
      traces: {},
      burst: null,
      capture: null,
      netlog: false,
      shard: null,
      untilDecided: null,
      browsers: ['chromium'],
    });
  });

  it('--trace-down takes a trace file, checked line by line, or the name of a trace the lab has; under a network the lab sets only', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-trace-'));
    try {
      writeFileSync(path.join(dir, 'good.trace'), '1\n2\n');
      writeFileSync(path.join(dir, 'bad.trace'), '1\n2\nx\n');
      assert.deepEqual(parse(['--network', 'packet', '--trace-down', path.join(dir, 'good.trace'), '--trace-up', 'markov-fast-4g-up']).traces, {
        traceDown: { name: 'good.trace', text: '1\n2\n' },
        traceUp: { name: 'markov-fast-4g-up' },
      });
      assert.throws(() => parse(['--network', 'link', '--trace-down', path.join(dir, 'bad.trace')]), /^InputError: --trace-down \(bad.trace\): line 3: "x" is not a whole number/);
      assert.throws(() => parse(['--trace-down', path.join(dir, 'good.trace')]), /--trace-down: a trace shapes a network the lab sets, not DevTools throttling/);
      assert.throws(() => parse(['--network', 'link', '--trace-up', 'no such/file']), /--trace-up: no such file, and not the name of a trace/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('--capture and --capture-whole only on a network that sees packets; --netlog not with a browser it did not start', () => {
    assert.deepEqual(parse(['--network', 'packet', '--capture']).capture, { whole: false });
    assert.deepEqual(parse(['--network', 'packet', '--capture-whole']).capture, { whole: true });
    assert.equal(parse(['--network', 'packet']).capture, null);
    assert.equal(parse(['--netlog']).netlog, true);
    refuses(['--network', 'link', '--capture'], '--capture: only on a network that carries packets (--network packet)', 'the lab link sees requests and TCP streams');
    refuses(['--network', 'packet,devtools', '--capture-whole'], '--capture-whole: only on a network that carries packets', 'the DevTools sees');
    refuses(['--netlog', '--browser-url', 'http://127.0.0.1:9222'], '--netlog: not with --browser-url');
  });

  it('asks for the usage with --help or -h, before looking at other values', () => {
    assert.deepEqual(parse(['--help']), { help: true });
    assert.deepEqual(parse(['-h', '--requests', 'abc']), { help: true });
  });
});

describe('parseRunnerArgs: --control', () => {
  it('alone takes the server the others are compared with; named, one of --servers', () => {
    assert.equal(parse(['--servers', 'caddy-h2,caddy-h3', '--control']).settings.control, 'caddy-h2');
    assert.equal(parse(['--control', '--servers', 'h1,h2-node']).settings.control, 'h1');
    assert.equal(parse(['--servers', 'h1,h2-node', '--control', 'h2-node']).settings.control, 'h2-node');
    assert.equal(parse(['--servers', 'h1,h2-node']).settings.control, '');
  });

  it('refuses a server the run does not measure, or none the lab has, in one line', () => {
    assert.throws(() => parse(['--servers', 'caddy-h2', '--control', 'h1']), /^InputError: --control: A\/A control must be one of the chosen servers \(caddy-h2\), not h1$/);
    assert.throws(() => parse(['--control', 'nginx']), /^InputError: --control: must be one of the chosen servers .*got "nginx"$/);
  });
});

describe('parseRunnerArgs: options', () => {
  it('reads every settings option into validated settings', () => {
    const { settings } = parse([
      '--requests', '30', '--size', '0.5', '--delay', '20', '--repeats', '3', '--max-in-flight', '50',
      '--servers', 'h2-node, h1', '--control', 'h2-node', '--connections', 'warm', '--preset', 'fast-4g', '--loss', '2', '--loss-seed', '42', '--network', 'packet',
    ]);
    assert.deepEqual(settings, {
      requests: 30,
      sizeMiB: 0.5,
      delayMs: 20,
      repeats: 3,
      maxInFlight: 50,
      servers: ['h1', 'h2-node'], // the canonical order, as the page keeps it
      control: 'h2-node',
      connections: 'warm',
      preset: 'fast-4g',
      network: 'devtools', // each point's own network is planExperiments' (runner/plan.js)
      loss: 2,
      lossSeed: 42,
    });
    assert.equal(parse([]).settings.lossSeed, undefined, 'no packet lost: no seed');
  });

  it('reads the output, browser and lab options', () => {
    const options = parse(['--out', 'tmp/run', '--json', '--quiet', '--headed', '--no-servers', '--ui', 'http://localhost:8080/lab/']);
    assert.equal(options.out, path.resolve('tmp/run'));
    assert.equal(parse(['--out', 'run'], { INIT_CWD: '/home/me/notes' }).out, path.resolve('/home/me/notes/run'), 'where npm was run');
    assert.equal(parse(['--out', '/tmp/run'], { INIT_CWD: '/home/me' }).out, path.resolve('/tmp/run'));
    assert.equal(options.json, true);
    assert.equal(options.quiet, true);
    assert.equal(options.headed, true);
    assert.equal(options.servers, false);
    assert.equal(options.ui, 'http://localhost:8080', 'the origin');
  });

  it('takes option=value as well as option value', () => {
    assert.equal(parse(['--requests=7']).settings.requests, 7);
  });

  it('reads --suite classic and --quick; the grids bring their own presets', () => {
    const options = parse(['--suite', 'classic', '--quick', '--servers', 'h1,h2-node', '--connections', 'warm']);
    assert.equal(options.suite, 'classic');
    assert.equal(options.quick, true);
    assert.deepEqual(options.presets, []);
    assert.deepEqual(options.settings.servers, ['h1', 'h2-node']);
    assert.equal(parse(['--suite', 'classic']).quick, false);
  });
});

describe('parseRunnerArgs: --preset', () => {
  for (const name of ['slow-4g', 'Slow 4G', 'SLOW 4G', 'slow_4g']) {
    it(`finds Slow 4G by "${name}"`, () => {
      const options = parse(['--preset', name]);
      assert.deepEqual(options.presets, [presetById('slow-4g')]);
      assert.equal(options.settings.preset, 'slow-4g');
    });
  }

  it('none and No throttling mean no throttling', () => {
    assert.deepEqual(ids(parse(['--preset', 'none']).presets), ['no-throttling']);
    assert.deepEqual(ids(parse(['--preset', 'No throttling']).presets), ['no-throttling']);
  });

  it('all expands to the throttled presets in table order, without Offline and No throttling', () => {
    const expected = ['3g', 'slow-4g', 'fast-4g', 'gprs', 'regular-2g', 'good-2g', 'regular-3g', 'good-3g', 'regular-4g', 'dsl', 'wifi'];
    const options = parse(['--preset', 'ALL']);
    assert.deepEqual(ids(options.presets), expected);
    assert.deepEqual(ids(options.presets), ids(presets).filter((id) => expected.includes(id)), 'table order');
    assert.equal(options.settings.preset, '3g', 'the first preset to run');
  });

  it('all combines with a sweep of another setting', () => {
    const options = parse(['--preset', 'all', '--sweep', 'delay=0,40']);
    assert.equal(options.presets.length, 11);
    assert.deepEqual(options.sweep, { param: 'delayMs', values: '0,40' });
  });
});

describe('parseRunnerArgs: --sweep', () => {
  // values stay text, as in the page's settings.sweep, and give planSweep the points that were checked.
  const pointsOf = ({ settings, sweep }) => planSweep(sweep.param, sweep.values, settings).points.map((p) => p.value);

  it('size=0.2,0.4 sweeps sizeMiB', () => {
    const options = parse(['--sweep', 'size=0.2,0.4']);
    assert.deepEqual(options.sweep, { param: 'sizeMiB', values: '0.2,0.4' });
    assert.deepEqual(pointsOf(options), [0.2, 0.4]);
    assert.deepEqual(ids(options.presets), ['no-throttling']);
  });

  it('maps requests and delay to their settings fields', () => {
    const requests = parse(['--sweep', 'requests=6, 30 150']);
    assert.deepEqual(requests.sweep, { param: 'requests', values: '6, 30 150' });
    assert.deepEqual(pointsOf(requests), [6, 30, 150]);
    assert.deepEqual(parse(['--sweep', 'DELAY=0,10']).sweep, { param: 'delayMs', values: '0,10' });
  });

  it('a preset sweep takes ids or labels; the sweep sets each preset, so presets is the base alone', () => {
    const options = parse(['--sweep', 'preset=wifi, Slow 4G,regular-2g']);
    assert.deepEqual(options.sweep, { param: 'preset', values: 'wifi, Slow 4G,regular-2g' });
    assert.deepEqual(pointsOf(options), ['wifi', 'slow-4g', 'regular-2g']);
    assert.deepEqual(ids(options.presets), ['no-throttling']);
  });
});

describe('parseRunnerArgs: refusals', () => {
  it('reads --browser-url as a URL and refuses anything else, and --headed beside it', () => {
    assert.equal(parse(['--browser-url', 'http://127.0.0.1:9222']).browserUrl, 'http://127.0.0.1:9222/');
    refuses(['--browser-url', 'chrome'], '--browser-url: must be the DevTools endpoint of a running Chrome, such as http://127.0.0.1:9222, got "chrome"');
    refuses(['--browser-url', 'http://127.0.0.1:9222', '--headed'], '--headed: not with --browser-url: that browser shows its windows as it was started');
  });

  it('gives the settings rule and the value for a bad number', () => {
    refuses(['--requests', 'abc'], '--requests: must be an integer from 1 to 10,000, got "abc"');
  });

  const badNumbers = [
    ['requests', '0'], ['requests', '1.5'], ['requests', '10001'], ['requests', '1e3'], ['requests', ' '],
    ['size', '-0.1'], ['size', '1e999'], ['size', '0x10'], ['size', '65'], ['size', 'NaN'],
    ['delay', '-1'], ['delay', '60001'], ['delay', '10ms'],
    ['repeats', '0'], ['repeats', '101'],
    ['max-in-flight', '0'], ['max-in-flight', '10001'],
  ];
  for (const [flag, value] of badNumbers) {
    it(`refuses --${flag}=${JSON.stringify(value)} with its bounds`, () => {
      refuses([`--${flag}=${value}`], `--${flag}: `, ` from `);
      refuses([`--${flag}=${value}`], `--${flag}: `, `, got ${JSON.stringify(value)}`);
    });
  }

  it('refuses a negative number given as a separate argument', () => {
    refuses(['--delay', '-5'], '--delay: needs a value', ': a number from 0 to 60,000 ms');
  });

  it('refuses an option without its value, naming what it takes', () => {
    refuses(['--requests'], '--requests: needs a value', 'from 1 to 10,000');
    refuses(['--preset'], '--preset: needs a value', '3g, slow-4g');
  });

  it('refuses a boolean option with a value', () => {
    refuses(['--json=yes'], '--json: takes no value');
  });

  it('refuses unknown options and positional arguments, listing the options', () => {
    refuses(['--fast'], '--fast: unknown option', '--requests, --size');
    refuses(['-x'], '-x: unknown option');
    refuses(['slow-4g'], '"slow-4g": unexpected argument', 'only options');
  });

  it('refuses an option given twice', () => {
    refuses(['--requests', '5', '--requests', '6'], '--requests: is given more than once');
  });

  it('refuses unknown servers, listing the ids', () => {
    refuses(['--servers', 'h1,h3'], `--servers: must be one or more of ${serverIds.join(', ')}, got "h1,h3"`);
    refuses(['--servers', ','], '--servers: ');
  });

  it('refuses a connection mode other than cold or warm', () => {
    refuses(['--connections', 'hot'], '--connections: must be cold or warm, got "hot"');
  });

  it('refuses an unknown preset, listing every id', () => {
    refuses(['--preset', 'Slow 5G'], '--preset: must be one of ', `${ids(presets).join(', ')}, all or none`);
    refuses(['--preset', 'Slow 5G'], '--preset: ', 'got "Slow 5G"');
    refuses(['--preset', 'wifi dsl'], '--preset: ', 'got "wifi dsl"');
  });

  it('refuses a sweep without "=" or with an unknown parameter', () => {
    refuses(['--sweep', 'size'], '--sweep: give PARAM=V1,V2,… with PARAM one of requests, size, delay, preset, loss, got "size"');
    refuses(['--sweep', 'sizeMiB=1'], '--sweep: PARAM must be one of requests, size, delay, preset, loss, got "sizeMiB=1"');
    refuses(['--sweep', 'repeats=1,2'], '--sweep: PARAM must be one of');
  });

  it('refuses bad sweep values with the rule planSweep gives', () => {
    refuses(['--sweep', 'size=0.2,a'], '--sweep: "a": Size must be a number from 0 to 64 MiB');
    refuses(['--sweep', 'size='], '--sweep: Give at least one value');
    refuses(['--sweep', 'preset=wifi,5g'], '--sweep: "5g" is not a network preset');
    const values = Array.from({ length: 21 }, (_, i) => i + 1).join(',');
    refuses(['--sweep', `requests=${values}`], '--sweep: A sweep has at most 20 points');
  });

  it('refuses a sweep point that breaks the bytes-in-flight limit', () => {
    refuses(['--sweep', 'size=1,64'], '--sweep: at size=64: Max in flight × Size must stay within 1,024 MiB');
  });

  it('refuses settings that break the bytes-in-flight limit together', () => {
    refuses(['--size', '64'], '--max-in-flight: Max in flight × Size must stay within 1,024 MiB');
  });

  it('refuses a sweep together with the option it sweeps', () => {
    refuses(['--preset', 'all', '--sweep', 'preset=wifi,dsl'], '--preset: cannot be combined with --sweep preset=');
    refuses(['--preset', 'slow-4g', '--sweep', 'preset=wifi'], '--preset: cannot be combined');
    refuses(['--size', '1', '--sweep', 'size=1,2'], '--size: cannot be combined with --sweep size=');
  });

  it('refuses --sweep and the settings the classic suite fixes together with --suite', () => {
    refuses(['--suite', 'classic', '--sweep', 'size=1'], '--sweep: cannot be combined with --suite classic');
    refuses(['--suite', 'classic', '--repeats', '3'], '--repeats: cannot be combined with --suite classic');
    refuses(['--suite', 'classic', '--preset', 'all'], '--preset: cannot be combined with --suite classic');
  });

  it('refuses an unknown suite and --quick without --suite', () => {
    refuses(['--suite', 'modern'], '--suite: the only suite is classic, got "modern"');
    refuses(['--quick'], '--quick: only with --suite classic');
  });

  it('refuses --no-servers without --ui, and --ui without --no-servers', () => {
    refuses(['--no-servers'], '--no-servers: needs --ui URL', 'http://localhost:8080');
    refuses(['--ui', 'http://localhost:8080'], '--ui: only with --no-servers');
  });

  it('refuses a --ui that is not an http(s) URL', () => {
    for (const ui of ['ftp://localhost:8080', 'localhost:8080', 'not a url', '']) {
      refuses(['--no-servers', '--ui', ui], '--ui: must be the running lab', `got ${JSON.stringify(ui)}`);
    }
  });

  it('refuses an empty --out', () => {
    refuses(['--out', ''], '--out: needs a directory');
  });
});

describe('runnerUsage', () => {
  it('lists every option', () => {
    const flags = ['requests', 'size', 'delay', 'repeats', 'max-in-flight', 'servers', 'connections', 'preset', 'sweep',
      'suite', 'quick', 'out', 'json', 'quiet', 'headed', 'no-servers', 'ui', 'help'];
    for (const flag of flags) assert.match(runnerUsage, new RegExp(`--${flag}\\b`), `--${flag}`);
  });

  it("gives the lab's defaults", () => {
    for (const text of ['(default 100)', '(default 0.1)', '(default 10)', '(default 600)', '(default cold)', '(default none)', 'results/<UTC time']) {
      assert.ok(runnerUsage.includes(text), text);
    }
  });
});

describe('parseRunnerArgs: the base seed of the losses', () => {
  /** Which of 5,000 packets each repeat of a point with `settings` loses downstream, as the packet network draws them. */
  const lossesOf = (settings) =>
    [1, 2, 3, 4].map((repeat) => {
      const model = { loss: settings.loss, burst: null };
      const loss = createLoss(() => model);
      loss.seed(lossStreamSeeds(runLossSeed(settings.lossSeed, repeat, model), 'down'));
      return Array.from({ length: 5_000 }, (_, i) => i).filter(() => loss.lost());
    });
  const command = ['--network', 'packet', '--preset', 'fast-4g', '--loss', '2'];

  it('is drawn fresh for each command that loses packets: two runs of the same command record different seeds, and --loss-seed gives the first one\'s losses back', () => {
    const [first, second] = [parse(command).settings, parse(command).settings];
    for (const { lossSeed } of [first, second]) assert.ok(Number.isInteger(lossSeed) && lossSeed >= 0 && lossSeed <= 2 ** 32 - 1, `${lossSeed}`);
    assert.notEqual(first.lossSeed, second.lossSeed);
    const again = parse([...command, '--loss-seed', String(first.lossSeed)]).settings;
    assert.equal(again.lossSeed, first.lossSeed);
    assert.deepEqual(lossesOf(again), lossesOf(first), 'the same packets lost, repeat by repeat');
    assert.notDeepEqual(lossesOf(second), lossesOf(first));
    assert.equal(parse(['--network', 'packet']).settings.lossSeed, undefined, 'no loss: nothing to seed');
  });

  it('is one for every experiment and point of the command (a loss sweep\'s points told apart by their rate)', () => {
    const o = parse(['--network', 'packet', '--preset', 'all', '--sweep', 'loss=1,2']);
    const points = planExperiments(o).flatMap((e) => e.points);
    assert.ok(points.length > 2);
    assert.ok(points.every((p) => p.settings.lossSeed === o.settings.lossSeed && Number.isInteger(p.settings.lossSeed)));
  });

  it('must be given to shards, which run apart and cannot draw one between them; the plan carries it to every point', () => {
    refuses([...command, '--shard', '1/2'], '--shard: the shards of one experiment must lose the same packets: give every shard the same --loss-seed N (must be an integer from 0 to 4,294,967,295)');
    const shard = planExperiments(parse([...command, '--repeats', '4', '--loss-seed', '9', '--shard', '2/2']));
    assert.deepEqual(shard.flatMap((e) => e.points.map((p) => [p.settings.lossSeed, p.shard?.repeatNumbers])), [[9, [2, 4]]]);
    assert.equal(parse(['--network', 'packet', '--shard', '1/2']).settings.lossSeed, undefined, 'no loss: shards need none');
  });
});

describe('parseRunnerArgs: --burst', () => {
  it('takes Gilbert–Elliott bursts as P,R on the packet network, seeded like random loss, and carries them to every point', () => {
    const o = parse(['--network', 'packet', '--preset', 'fast-4g', '--burst', '0.51, 25']);
    assert.deepEqual(o.burst, { p: 0.51, r: 25 });
    assert.ok(Number.isInteger(o.settings.lossSeed), 'bursts alone lose packets: the command draws a base seed');
    assert.equal(parse(['--network', 'packet', '--loss', '1']).burst, null, 'none unless asked for');
    assert.deepEqual(parse(['--network', 'packet', '--burst', '0,100']).burst, { p: 0, r: 100 }, 'the bounds themselves');
  });

  it('refuses rates out of bounds, a third part, words, and networks that lose no packets', () => {
    const rule = '--burst: must be P,R: Gilbert–Elliott bursts, P % of good packets start a burst (a number from 0 to 50 %) and R % of a burst\'s packets end it (a number from 1 to 100 %)';
    for (const bad of ['51,25', '1,0.5', '1,101', '1', '1,2,3', '-1,25', 'a,b', ',25', '1e1,25']) refuses(['--network', 'packet', `--burst=${bad}`], rule, `got "${bad}"`);
    refuses(['--network', 'link', '--burst', '1,25'], '--burst: only a network that loses packets has bursts: give --network packet alone');
  });
});

describe('parseRunnerArgs: --network', () => {
  it('runs every point under DevTools by default, under the link or under both in that order', () => {
    assert.deepEqual(parse(['--network', 'link']).networks, ['link']);
    assert.deepEqual(parse(['--network', 'Both', '--preset', 'fast-4g']).networks, ['devtools', 'link']);
  });

  it('takes the packet network, alone or in a list (in the table order), and loss only on it', () => {
    assert.deepEqual(parse(['--network', 'packet']).networks, ['packet']);
    assert.deepEqual(parse(['--network', 'packet, devtools,link']).networks, ['devtools', 'link', 'packet']);
    assert.deepEqual(parse(['--network', 'packet', '--sweep', 'loss=0,1,2,5']).sweep, { param: 'loss', values: '0,1,2,5' });
    refuses(['--network', 'devtools,packet', '--loss', '1'], '--loss: only the packet network loses packets');
    refuses(['--network', 'packet', '--sweep', 'loss=0,60'], '--sweep: "60": Loss must be a number from 0 to 50 %');
    refuses(['--network', 'link', '--loss-seed', '7'], '--loss-seed: seeds the losses of a network that loses packets: give --network packet alone');
    refuses(['--network', 'packet', '--loss-seed=-1'], '--loss-seed: must be an integer from 0 to 4,294,967,295, got "-1"');
    refuses(['--network', 'packet', '--loss-seed', '1.5'], '--loss-seed: must be an integer from 0 to 4,294,967,295');
    refuses(['--network', 'packet', '--loss-seed', '4294967296'], '--loss-seed: must be an integer from 0 to 4,294,967,295');
    refuses(['--network', 'packet,packet'], '--network:', 'comma-separated list');
    refuses(['--network', 'packet', '--preset', 'offline'], `--network: ${cannotCarry('packet')}`);
    refuses(['--network', 'packet', '--no-servers', '--ui', 'http://localhost:8080'], '--network:', 'starts its own lab');
  });

  it('refuses anything else, and Offline through the link', () => {
    refuses(['--network', 'netem'], '--network:', 'devtools, link, packet, a comma-separated list of them, or both');
    refuses(['--network'], '--network:', 'devtools, link, packet, a comma-separated list of them, or both');
    refuses(['--network', 'link', '--preset', 'offline'], `--network: ${cannotCarry('link')}`);
    refuses(['--network', 'both', '--sweep', 'preset=fast-4g,offline'], `--network: ${cannotCarry('link')}`);
  });
});

describe('parseRunnerArgs: --shard', () => {
  it('reads K/N and refuses what is not a part of N', () => {
    assert.deepEqual(parseRunnerArgs(['--shard', '2/3']).shard, { k: 2, n: 3 });
    assert.equal(parseRunnerArgs([]).shard, null);
    for (const bad of ['3/2', '0/2', 'a/b', '1/', '1/1001', '2/0']) {
      assert.throws(() => parseRunnerArgs(['--shard', bad]), (err) => err.message.startsWith('--shard: must be K/N') && err.message.includes(`got "${bad}"`), bad);
    }
  });
});

describe('parseRunnerArgs: --browser', () => {
  it('takes chromium, firefox or both, in the order they run; each point runs in each, networks compared within a browser', () => {
    assert.deepEqual(parse(['--browser', 'firefox,chromium', '--network', 'link']).browsers, ['chromium', 'firefox']);
    const planned = planExperiments(parse(['--browser', 'chromium,firefox', '--network', 'link,packet']));
    assert.deepEqual(planned.map((e) => [e.id, e.browser, e.baseId, e.browserBaseId]), [
      ['presets-link-chromium', 'chromium', 'presets-chromium', 'presets-link'],
      ['presets-packet-chromium', 'chromium', 'presets-chromium', 'presets-packet'],
      ['presets-link-firefox', 'firefox', 'presets-firefox', 'presets-link'],
      ['presets-packet-firefox', 'firefox', 'presets-firefox', 'presets-packet'],
    ]);
    // Each browser's points are its own: a result set on one is not the other's.
    assert.notEqual(planned[0].points[0], planned[2].points[0]);
  });
});
