// DevTools network presets: the one table the UI and the headless runner share. Numbers are
// what DevTools itself applies (bytes per second, milliseconds); −1 means "not limited".

import { networkById, networks } from './networks.js';
import { oneOfText } from './text.js';

const currentSource = 'devtools-frontend front_end/core/sdk/NetworkManager.ts';
// The classic experiment used these; DevTools no longer offers them.
const legacySource = 'devtools-frontend front_end/components/NetworkConditionsSelector.js (older DevTools)';

/**
 * A DevTools network preset, with the numbers DevTools applies.
 * @typedef {object} Preset
 * @property {string} id           what URLs, files and --preset use (e.g. 'slow-4g')
 * @property {string} label        DevTools' own name (e.g. 'Slow 4G')
 * @property {'current'|'legacy'} group  offered by today's DevTools, or only by older ones
 * @property {number} downloadBps  bytes per second; −1 = not limited, 0 = nothing passes (Offline)
 * @property {number} uploadBps    bytes per second; −1 = not limited
 * @property {number} latencyMs    added round trip
 * @property {string} [formerly]   the label today's DevTools gave these numbers before
 * @property {string} source       where in DevTools' sources the numbers are
 */

/**
 * @param {string} id @param {string} label @param {number} downloadBps @param {number} uploadBps @param {number} latencyMs
 * @param {string} [formerly]
 * @returns {Preset}
 */
const current = (id, label, downloadBps, uploadBps, latencyMs, formerly) => ({
  id, label, group: 'current', downloadBps, uploadBps, latencyMs, ...(formerly && { formerly }), source: currentSource,
});
/** @param {string} id @param {string} label @param {number} downloadBps @param {number} uploadBps @param {number} latencyMs @returns {Preset} */
const legacy = (id, label, downloadBps, uploadBps, latencyMs) => ({
  id, label, group: 'legacy', downloadBps, uploadBps, latencyMs, source: legacySource,
});

/** @type {readonly Readonly<Preset>[]} */
export const presets = Object.freeze([
  current('no-throttling', 'No throttling', -1, -1, 0),
  current('3g', '3G', 50_000, 50_000, 2_000, 'Slow 3G'),
  current('slow-4g', 'Slow 4G', 180_000, 84_375, 562.5, 'Fast 3G'),
  current('fast-4g', 'Fast 4G', 1_012_500, 168_750, 165),
  current('offline', 'Offline', 0, 0, 0),
  legacy('gprs', 'GPRS', 6_400, 2_560, 500),
  legacy('regular-2g', 'Regular 2G', 32_000, 6_400, 300),
  legacy('good-2g', 'Good 2G', 57_600, 19_200, 150),
  legacy('regular-3g', 'Regular 3G', 96_000, 32_000, 100),
  legacy('good-3g', 'Good 3G', 196_608, 96_000, 40),
  legacy('regular-4g', 'Regular 4G', 524_288, 393_216, 20),
  legacy('dsl', 'DSL', 262_144, 131_072, 5),
  legacy('wifi', 'WiFi', 3_932_160, 1_966_080, 2),
].map((p) => Object.freeze(p)));

export const defaultPresetId = 'no-throttling';

/** @param {string} id @returns {Readonly<Preset>|undefined} */
export function presetById(id) {
  return presets.find((p) => p.id === id);
}

// "Regular 2G", "regular-2g" and "REGULAR  2g" all name the same preset.
/** @param {string} text */
const normalize = (text) => text.trim().toLowerCase().replace(/[\s_]+/g, '-');

/**
 * The preset a person means by an id or a label, in any case or spacing; undefined if none.
 * @param {string} text
 */
export const presetByName = (text) => presets.find((p) => normalize(text) === p.id || normalize(text) === normalize(p.label));

/** @param {{ downloadBps: number, latencyMs: number }} preset */
export function isThrottled(preset) {
  return preset.downloadBps > 0 || preset.latencyMs > 0;
}

/**
 * True for a preset that lets no byte through (DevTools' Offline).
 * @param {{ downloadBps: number }} preset
 */
export function isOffline(preset) {
  return preset.downloadBps === 0;
}

/**
 * Whether `network` (an id of common/setup/networks.js) can apply the preset `presetId`. Only
 * request-level throttling can apply Offline: it fails each request, where a path below TLS that
 * passes no byte would leave every connection hanging until its timeout.
 * @param {string} network
 * @param {string} presetId
 */
export function carries(network, presetId) {
  const preset = presetById(presetId); // an unknown id is the preset check's to refuse
  return Boolean(networkById(network)?.carries.offline) || !preset || !isOffline(preset);
}

/**
 * The one message for a preset that `network` cannot carry (carries() is false).
 * @param {string} network
 */
export const cannotCarry = (network) =>
  `Offline lets nothing through the ${networkById(network)?.title ?? network}: only ${oneOfText(networks.filter((n) => n.carries.offline).map((n) => `${n.title} throttling`))} can apply it`;

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

// Three significant digits in decimal units, as DevTools labels its own presets (kB = 1,000 B).
/** @param {number} bps */
function rate(bps) {
  const [value, unit] = bps >= 1e6 ? [bps / 1e6, 'MB/s'] : bps >= 1e3 ? [bps / 1e3, 'kB/s'] : [bps, 'B/s'];
  return `${number.format(Number(value.toPrecision(3)))} ${unit}`;
}

/** @param {Preset} p */
export function describePreset(p) {
  if (isOffline(p)) return `${p.label} · every request fails`;
  if (!isThrottled(p)) return p.label;
  const parts = [p.label];
  if (p.downloadBps > 0) parts.push(`${rate(p.downloadBps)} down`);
  if (p.uploadBps > 0) parts.push(`${rate(p.uploadBps)} up`);
  parts.push(`${number.format(p.latencyMs)} ms`);
  return parts.join(' · ');
}
