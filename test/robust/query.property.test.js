// Property-based tests of /option's query contract (server/http/query.js, README "Bad input"):
// whatever the query string, the answer is a size and a delay within bounds, or a 400 that
// names the parameter and its bounds; never another exception, never another status. First
// the parser itself, many runs; then fewer runs over the wire against the three Node servers and,
// when Caddy is installed, caddy-h1 and caddy-h2, each of which must agree with the parser on the
// exact bytes it received (through Caddy: on the bytes Caddy forwarded).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MiB, rangeRule } from '../../common/setup/units.js';
import { defaults } from '../../server/config.js';
import { queryParser } from '../../server/http/query.js';
import { HttpError } from '../../server/http/errors.js';
import { optionParams } from '../../server/http/handler.js';
import { caddyMissing } from '../helpers/caddy.js';
import { ids, isH1, startTestLab } from '../helpers/lab.js';
import { expectedProtocol, h1Agent, h1Get, h2Get, h2Session } from './fixtures/lab-child.js';

const names = ['size', 'delay'];
// A failing run then says which assertion failed, not only the counterexample.
fc.configureGlobal({ includeErrorInReport: true });

/** /option's parameters as handler.js declares them; the wire tests check the servers agree. */
const optionParser = (bounds) => {
  const { size, delay } = optionParams({ maxSizeMiB: bounds.size, maxDelayMs: bounds.delay });
  return queryParser([size, delay]);
};

// The contract's "plain decimal number", written out independently of the parser's regex.
const isPlainDecimal = (text) => /^[0-9]+(\.[0-9]*)?$/.test(text) || /^\.[0-9]+$/.test(text);

// ---- generators ------------------------------------------------------------------------------

const digits = (minLength, maxLength) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });

/** Decoded value texts that are plain decimals: small, at and around the bound, huge, long. */
const decimals = (max) =>
  fc.oneof(
    digits(1, 5),
    fc.tuple(digits(0, 4), digits(0, 6)).filter(([i, f]) => i || f).map(([i, f]) => `${i}.${f}`),
    fc.tuple(fc.double({ min: 0, max: max * 2, noNaN: true }), fc.nat({ max: 12 })).map(([x, places]) => x.toFixed(places)),
    fc.constantFrom(`${max}`, `${max}.0`, `${max + 1}`, '0', '0.', '.0', '00000'),
    // Just above and below the bound, down to where a double can no longer tell them apart.
    fc.nat({ max: 17 }).map((n) => `${max}.${'0'.repeat(n)}1`),
    fc.nat({ max: 17 }).map((n) => `${max - 1}.${'9'.repeat(n + 1)}`),
    fc.tuple(digits(1, 3), fc.nat({ max: 400 })).map(([d, zeros]) => '0'.repeat(zeros) + d),
    fc.nat({ max: 400 }).map((n) => '9'.repeat(n + 1)), // past Number.MAX_VALUE from 309 digits on
    fc.nat({ max: 400 }).map((n) => `0.${'0'.repeat(n)}1`),
  );

/** Decoded value texts that are mostly not plain decimals: signs, exponents, whitespace, unicode digits. */
const nonDecimals = (max) =>
  fc.oneof(
    fc.tuple(fc.constantFrom('-', '+', ' ', '\t', '\n', '\u00a0', '0x', '\u0663', '\uff11'), decimals(max)).map(([p, v]) => p + v),
    fc.tuple(decimals(max), fc.constantFrom('e1', 'E-2', 'e+999', ' ', 'x', '.', '.5', '%', 'n', '\u0000', '\u0661')).map(([v, s]) => v + s),
    fc.constantFrom('', 'NaN', 'Infinity', '-Infinity', '1e999', '0x10', '0b1', '0o7', '1_000', '1,5', '.', '..', '-0', '+0', ' ', '[]', '\u{1d7d9}'),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );

/** A query part as the parser should decode it; value null is a bare key; broken spoils the value's encoding. */
const part = (key, value, broken = false) => ({ key, value, broken });

/** What a client may send for one of our parameters: nothing, once, twice, bracketed, bare, broken. */
function paramParts(name, max) {
  const value = fc.oneof({ weight: 3, arbitrary: decimals(max) }, { weight: 2, arbitrary: nonDecimals(max) });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    { weight: 6, arbitrary: value.map((v) => [part(name, v)]) },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => [part(name, a), part(name, b)]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('[]', '[0]', '[a]', '[', '[]]'), value).map(([s, v]) => [part(name + s, v)]) },
    { weight: 1, arbitrary: fc.constant([part(name, null)]) },
    { weight: 1, arbitrary: value.map((v) => [part(name, v, true)]) },
  );
}

const ourName = (key) => names.find((n) => key === n || key.startsWith(`${n}[`));

/** Other parameters (cache-busters, near-misses of our names), which must change nothing. */
const noise = fc.array(
  fc
    .tuple(
      fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('Size', 'SIZE', 'sizes', 'size ', ' size', 'siz', 'size]', 'delay.x', '', '_')),
      fc.option(fc.string({ unit: 'binary', maxLength: 8 })),
      fc.boolean(),
    )
    .filter(([key]) => ourName(key) === undefined)
    .map(([key, value, broken]) => part(key, value, broken)),
  { maxLength: 4 },
);

// Endings that no following text can repair: decodeURIComponent must refuse them.
const brokenTails = ['%', '%4', '%zz', '%G0', '%E0%A4', '%C0%80', '%ED%A0%80', '%FF', '%%'];

/**
 * Percent-encodes text the way some client might: 'minimal' only what the syntax needs, 'all'
 * every code point (lower-case hex, %20), 'alternate' every other one; spaces otherwise as '+'.
 */
function encode(text, style, inKey) {
  let out = '';
  let i = 0;
  for (const ch of text) {
    i += 1;
    const lone = ch.length === 1 && ch >= '\ud800' && ch <= '\udfff'; // no UTF-8 form: only raw
    const needed = ch === '%' || ch === '&' || ch === '+' || (inKey && ch === '=');
    const wanted = style === 'all' || (style === 'alternate' && i % 2 === 0);
    if (lone || !(needed || wanted)) out += ch;
    else if (ch === ' ' && style !== 'all') out += '+';
    else {
      const hex = [...Buffer.from(ch)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
      out += style === 'all' ? hex : hex.toUpperCase();
    }
  }
  return out;
}

/** A whole query: our parameters and noise in any order, empty parts, each part encoded its own way. */
const structuredQuery = (bounds) =>
  fc
    .tuple(paramParts('size', bounds.size), paramParts('delay', bounds.delay), noise, fc.nat({ max: 2 }))
    .chain(([size, delay, other, empties]) => {
      const parts = [...size, ...delay, ...other, ...Array.from({ length: empties }, () => null)];
      return fc.tuple(
        fc.shuffledSubarray(parts, { minLength: parts.length, maxLength: parts.length }),
        fc.array(fc.constantFrom('minimal', 'all', 'alternate'), { minLength: parts.length, maxLength: parts.length }),
        fc.array(fc.constantFrom(...brokenTails), { minLength: parts.length, maxLength: parts.length }),
      );
    })
    .map(([parts, styles, tails]) => {
      const text = parts.map((p, i) => {
        if (p === null) return '';
        const key = encode(p.key, styles[i], true);
        if (p.value === null) return key;
        return `${key}=${encode(p.value, styles[i], false)}${p.broken ? tails[i] : ''}`;
      });
      return { query: text.join('&'), parts: parts.filter(Boolean) };
    });

/** Token soup: query syntax, our names (plain and encoded), numbers and broken escapes thrown together. */
const soupText = fc
  .array(
    fc.oneof(
      fc.constantFrom('=', '&', '%', '%2', '%25', '%5B', '%5D', '[', ']', '+', '-', '.', 'e', '0', '1', '9', '64', '60000', ' ', '%20', '%00', '%zz', '%C0%80', '%E2%82%AC', '\u20ac', '?', '#', 'NaN'),
      fc.string({ unit: 'binary', maxLength: 3 }),
    ),
    { maxLength: 8 },
  )
  .map((tokens) => tokens.join(''));
const soup = fc
  .array(
    fc
      .tuple(
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom('size', 'delay', 'si%7Ae', '%64elay', 'size%5B%5D', 'delay[]', 'size+') }, soupText),
        fc.constantFrom('=', '', '=='),
        soupText,
      )
      .map((p) => p.join('')),
    { maxLength: 5 },
  )
  .map((parts) => parts.join('&'));

// ---- oracle and checks ------------------------------------------------------------------------

/** The parser's answer: { values } or { status, body }; any other exception escapes and fails the run. */
function outcomeOf(parse, query) {
  try {
    return { values: parse(query) };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return { status: err.status, body: err.body };
  }
}

/** The contract for any input: values within bounds, or a short 400 naming a parameter and its bounds. */
function assertContract(outcome, bounds) {
  if (outcome.values) {
    assert.deepEqual(Object.keys(outcome.values).sort(), ['delay', 'size']);
    for (const name of names) {
      const v = outcome.values[name];
      assert.ok(Number.isFinite(v) && v >= 0 && v <= bounds[name], `${name} = ${v} within 0…${bounds[name]}`);
    }
    return;
  }
  assert.equal(outcome.status, 400);
  const { field: param, error } = outcome.body;
  assert.ok(names.includes(param), `param ${param}`);
  assert.ok(error.includes(`${param} must be ${rangeRule({ min: 0, max: bounds[param], unit: param === 'size' ? 'MiB' : 'ms' })}`), error);
  assert.ok(error.length <= 200, `a bounded message, not an echo of the input: ${error.length} chars`);
}

/** What the contract says a structured query must give: the set of parameters at fault, or the values. */
function expectation(parts, bounds) {
  const given = new Map();
  const faulty = new Set();
  for (const { key, value, broken } of parts) {
    const name = ourName(key);
    if (name === undefined) continue;
    if (key !== name || broken || given.has(name)) faulty.add(name);
    given.set(name, value ?? '');
  }
  for (const [name, text] of given) if (!isPlainDecimal(text) || Number(text) > bounds[name]) faulty.add(name);
  if (faulty.size) return { faulty };
  return { values: Object.fromEntries(names.map((n) => [n, given.has(n) ? Number(given.get(n)) : 0])) };
}

function assertExpected(outcome, { faulty, values }) {
  if (values) assert.deepEqual(outcome.values, values);
  else assert.ok(outcome.status === 400 && faulty.has(outcome.body.field), `400 naming one of ${[...faulty]}, got ${JSON.stringify(outcome)}`);
}

// ---- the parser -------------------------------------------------------------------------------

describe('the /option query parser', () => {
  const bounds = { size: defaults.maxSizeMiB, delay: defaults.maxDelayMs };
  const parse = optionParser(bounds);

  test('structured queries give exactly the values or the 400 the contract says', () => {
    fc.assert(
      fc.property(structuredQuery(bounds), ({ query, parts }) => {
        const outcome = outcomeOf(parse, query);
        assertContract(outcome, bounds);
        assertExpected(outcome, expectation(parts, bounds));
      }),
      { numRuns: 20_000 },
    );
  });

  test('any string at all gives values within bounds or a 400 naming the parameter', () => {
    const anyQuery = fc.oneof(soup, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 50 }));
    fc.assert(
      fc.property(anyQuery, (query) => assertContract(outcomeOf(parse, query), bounds)),
      { numRuns: 20_000 },
    );
  });
});

// ---- over the wire ----------------------------------------------------------------------------

// Characters a request target may carry as they are (RFC 3986 query plus '%'); everything else
// goes percent-encoded so every client library sends the bytes unchanged.
const wireSafe = (query) => query.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (ch) => encodeURIComponent(ch.isWellFormed() ? ch : '\ufffd'));

// caddy-h3 is left out: Node has no HTTP/3 client.
const wireIds = [...ids, 'caddy-h1', 'caddy-h2'];
const skipOf = (id) => (ids.includes(id) ? false : caddyMissing);

describe('the servers over the wire', () => {
  // Small limits keep 200s quick (bodies ≤ 1 MiB, waits ≤ 20 ms) and put the bounds where
  // generated numbers often cross them.
  const bounds = { size: 1, delay: 20 };
  const parse = optionParser(bounds);
  let lab;
  const clients = {};
  before(async () => {
    lab = await startTestLab({ maxSizeMiB: bounds.size, maxDelayMs: bounds.delay, noCaddy: Boolean(caddyMissing) });
    for (const { id, origin } of lab.describe().servers.filter((s) => wireIds.includes(s.id))) {
      const at = origin.replace('//localhost:', '//127.0.0.1:');
      if (isH1(id)) {
        const agent = h1Agent(lab.certs.ca, 1);
        clients[id] = { get: (path) => h1Get(agent, at, path), close: () => agent.destroy() };
      } else {
        const session = await h2Session(at, lab.certs.ca);
        clients[id] = { get: (path) => h2Get(session, path), close: () => session.close() };
      }
    }
  });
  after(async () => {
    for (const client of Object.values(clients)) client.close();
    await lab?.close();
  });

  for (const id of wireIds) {
    test(`${id}: answers 200 or 400 exactly as the parser does for the query it received`, { skip: skipOf(id) }, async () => {
      const query = fc.oneof({ weight: 2, arbitrary: structuredQuery(bounds).map((q) => q.query) }, soup).map(wireSafe);
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const expected = outcomeOf(parse, q);
          assertContract(expected, bounds);
          const res = await clients[id].get(`/option?${q}`);
          assert.ok(res.status === 200 || res.status === 400, `status ${res.status}`);
          assert.equal(res.headers['x-server'], id);
          assert.equal(res.protocol, expectedProtocol(id));
          if (expected.values) {
            const bytes = Math.floor(expected.values.size * MiB); // the handler's rule (README: floor)
            assert.equal(res.status, 200, `body: ${res.body.toString().slice(0, 200)}`);
            assert.equal(res.body.length, bytes);
            assert.equal(res.headers['content-length'], String(bytes));
          } else {
            assert.equal(res.status, 400);
            assert.equal(res.headers['content-type'], 'application/json');
            assert.deepEqual(JSON.parse(res.body.toString()), expected.body);
          }
        }),
        { numRuns: 400 },
      );
    });
  }
});
