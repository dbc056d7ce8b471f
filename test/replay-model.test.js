// Page models: bodies made for a HAR without them, of the recorded size and type, that ask for
// their recorded children (a document its tags, a stylesheet its images and fonts, a script its
// requests); and the study's page shapes, which differ in one thing at the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { readHar } from '../server/replay/archive.js';
import { createPageModel, kindOf, parentsOf } from '../server/replay/model.js';
import { pageShapes } from '../runner/replay/shapes.js';
import { har, harEntry } from './fixtures/har.js';

const page = 'https://www.example/';
const entry = (url, mimeType, size, startMs, initiator, more = {}) => harEntry(url, { mimeType, body: null, size, startMs, wait: 10, ...(initiator ? { initiator: { type: 'parser', url: initiator } } : {}), ...more });
const archive = readHar(har([
  entry(page, 'text/html', 4000, 0),
  entry('https://static.example/site.css', 'text/css', 2000, 20, page),
  entry('https://static.example/bg.png', 'image/png', 3000, 60, 'https://static.example/site.css'),
  entry('https://fonts.example/a.woff2', 'font/woff2', 5000, 61, 'https://static.example/site.css'),
  entry('https://cdn.example/app.js', 'application/javascript', 1500, 21, page),
  entry('https://api.example/data.json', 'application/json', 700, 80, 'https://cdn.example/app.js'),
  entry('https://img.example/hero.png', 'image/png', 50, 22, page),
  // No initiator: placed by time, under the script that had ended before it (app.js, 21 + 10 ms).
  entry('https://ads.example/late.png', 'image/png', 400, 200, null),
  // An initiator that started after it cannot be its parent: the document takes it.
  entry('https://cdn.example/early.js', 'application/javascript', 100, 5, 'https://api.example/data.json'),
  entry('https://old.example/moved', 'text/html', 0, 23, page, { status: 301, headers: [['location', 'https://new.example/here']] }),
  entry('https://new.example/here', 'text/html', 900, 40, page),
], page));
const byUrl = (url) => archive.exchanges.find((e) => e.url === url);

test('a response\'s kind comes from its recorded type, else its path', () => {
  const kinds = archive.exchanges.map((e) => kindOf(e));
  assert.deepEqual(kinds, ['html', 'css', 'image', 'font', 'js', 'other', 'image', 'image', 'js', 'html', 'html']);
  assert.equal(kindOf({ ...byUrl(page), mimeType: '', url: 'https://x.example/a.mjs' }), 'js');
  assert.equal(kindOf({ ...byUrl(page), mimeType: 'application/octet-stream', url: 'https://x.example/f.woff2' }), 'font');
});

test('each request\'s parent: the recorded initiator where it can be one, else the last script ended before it, else the document; a redirect\'s target none', () => {
  const parent = parentsOf(archive, byUrl(page));
  const of = (url) => parent.get(byUrl(url))?.url ?? null;
  assert.equal(of(page), null);
  assert.equal(of('https://static.example/bg.png'), 'https://static.example/site.css');
  assert.equal(of('https://api.example/data.json'), 'https://cdn.example/app.js');
  assert.equal(of('https://ads.example/late.png'), 'https://cdn.example/app.js');
  assert.equal(of('https://cdn.example/early.js'), page);
  assert.equal(of('https://old.example/moved'), page);
  assert.equal(of('https://new.example/here'), null);
});

/** The chunks of a PNG, each checked against its CRC. */
function pngChunks(buf) {
  assert.equal(buf.subarray(0, 8).toString('hex'), '89504e470d0a1a0a');
  const out = [];
  for (let at = 8; at < buf.length;) {
    const length = buf.readUInt32BE(at);
    const type = buf.subarray(at + 4, at + 8).toString('latin1');
    assert.equal(buf.readUInt32BE(at + 8 + length), zlib.crc32(buf.subarray(at + 4, at + 8 + length)), `${type}'s CRC`);
    out.push(type);
    at += 12 + length;
  }
  return out;
}

test('made bodies have the recorded size and ask for their children: tags, stylesheet rules with the document\'s hooks, script calls', () => {
  const model = createPageModel(archive, page);
  const body = (url) => model.bodyOf(byUrl(url));
  const doc = body(page).toString();
  assert.equal(body(page).length, 4000);
  for (const tag of ['<link rel="stylesheet" href="https://static.example/site.css">', '<script src="https://cdn.example/app.js"></script>', '<img src="https://img.example/hero.png" alt="">', '<script src="https://cdn.example/early.js"></script>', '<iframe src="https://old.example/moved"></iframe>', '<link rel="icon" href="data:,">']) assert.ok(doc.includes(tag), tag);
  assert.ok(!doc.includes('new.example'), 'the redirect leads there');
  assert.ok(doc.indexOf('site.css') < doc.indexOf('app.js') && doc.indexOf('app.js') < doc.indexOf('hero.png'), 'in the recorded order');
  const css = body('https://static.example/site.css').toString();
  assert.match(css, /^\.h2lab-bg-2 \{ background-image: url\("https:\/\/static\.example\/bg\.png"\); \}\n@font-face \{ font-family: "h2lab-font-3"; src: url\("https:\/\/fonts\.example\/a\.woff2"\); \}/);
  assert.ok(doc.includes('<div class="h2lab-bg-2"') && doc.includes("font-family: 'h2lab-font-3'"), 'the document uses what the stylesheet declares');
  const js = body('https://cdn.example/app.js').toString();
  assert.ok(js.includes('fetch("https://api.example/data.json", { method: "GET", mode: \'no-cors\' })') && js.includes('new Image().src = "https://ads.example/late.png";'), js.slice(0, 300));
  assert.equal(js.length, 1500);
  // A PNG of the recorded size that still decodes: its padding in an ancillary chunk.
  const image = body('https://static.example/bg.png');
  assert.equal(image.length, 3000);
  assert.deepEqual(pngChunks(image), ['IHDR', 'IDAT', 'h2lA', 'IEND']);
  assert.deepEqual(pngChunks(body('https://img.example/hero.png')), ['IHDR', 'IDAT', 'IEND'], 'too small for padding: the bare image');
  assert.equal(body('https://api.example/data.json').length, 700);
  assert.equal(model.bodyOf(byUrl('https://api.example/data.json')), body('https://api.example/data.json'), 'made once');
  assert.deepEqual(model.headersOf(byUrl('https://fonts.example/a.woff2')), [['access-control-allow-origin', '*']]);
  assert.deepEqual(model.headersOf({ ...byUrl('https://api.example/data.json'), headers: [] }), [['content-type', 'application/json']]);
  assert.equal(model.bodyOf({ ...byUrl(page), body: Buffer.from('recorded') }), null, 'a recorded body is the recording\'s');
});

test('the study\'s shapes: a page of 101 requests over 24 origins, the same folded into one, and few large against many small at the same bytes', () => {
  const shapes = Object.fromEntries(pageShapes().map((s) => [s.name, readHar(s.har)]));
  const bytes = (a) => a.exchanges.reduce((n, e) => n + e.size, 0);
  assert.ok(shapes['many-origins'].exchanges.length >= 100 && shapes['many-origins'].byOrigin.size >= 20, 'at least 100 requests over 20 origins');
  assert.equal(shapes['one-origin'].byOrigin.size, 1);
  assert.equal(shapes['one-origin'].exchanges.length, shapes['many-origins'].exchanges.length);
  assert.equal(bytes(shapes['one-origin']), bytes(shapes['many-origins']));
  assert.equal(bytes(shapes['few-large']), bytes(shapes['many-small']));
  assert.ok(shapes['many-small'].exchanges.length > 10 * shapes['few-large'].exchanges.length);
  for (const [name, a] of Object.entries(shapes)) {
    assert.equal(a.counts.withoutBody, a.exchanges.length, `${name} holds no body`);
    const parent = parentsOf(a, a.exchanges[0]);
    assert.ok(a.exchanges.slice(1).every((e) => parent.get(e)), `${name}: every request has a parent`);
  }
});
