// Colours and names every chart uses, from one place. Server colours come from the Okabe–Ito
// palette (safe for the common colour-vision deficiencies); connection colours extend it with
// Paul Tol's "muted" colours so a waterfall can tell up to 12 connections apart (the legend
// always names the id, so repeats after 12 stay readable).
import { serverById, serverLabel, servers } from '../../common/setup/servers.js';

export { serverLabel };

/** Each server's colour, from the registry. */
export const serverColors = Object.freeze(Object.fromEntries(servers.map((s) => [s.id, s.color])));

const fallbackColor = '#777777';

/** The colour of a server id, an A/A slot's included (grey for an unknown id). @param {string} id */
export const serverColor = (id) => serverById(id)?.color ?? fallbackColor;

/**
 * Page-load modes: Paul Tol's "muted" colours (also safe for the common colour-vision
 * deficiencies), light enough for black whiskers on them, and none of them a server colour.
 */
/** @type {Readonly<Record<string, string>>} */
export const modeColors = Object.freeze({
  requested: '#88CCEE', // cyan
  preload: '#AA4499', // purple
  push: '#CC6677', // rose
  hints: '#DDCC77', // sand
});

/** The colour of a page-load mode (grey for an unknown one). @param {string} mode */
export const modeColor = (mode) => modeColors[mode] ?? fallbackColor;

/** Marks drawn over coloured bars: individual repeats, floors, error whiskers. */
export const inkColor = '#222222';
/** Failed requests and anything that is not a measurement. */
export const failedColor = '#9E9E9E';
export const failedHatchColor = '#424242';

/**
 * 12 colours, distinct side by side on white. The first eleven are not server colours, so a
 * waterfall's connections (up to 11) are never mistaken for a server: Paul Tol's nine muted
 * colours, then Okabe–Ito's yellow (late: the weakest on white) and black, and one server
 * colour last.
 */
export const connectionPalette = Object.freeze([
  '#332288', // indigo (Tol)
  '#999933', // olive (Tol)
  '#882255', // wine (Tol)
  '#44AA99', // teal (Tol)
  '#AA4499', // purple (Tol)
  '#117733', // green (Tol)
  '#88CCEE', // cyan (Tol)
  '#CC6677', // rose (Tol)
  '#DDCC77', // sand (Tol)
  '#F0E442', // yellow (Okabe–Ito)
  '#000000', // black (Okabe–Ito)
  '#0072B2', // blue (Okabe–Ito; also h2-spdy)
]);

/**
 * Colour of the n-th connection (1, 2, …), repeating after 12; grey for anything else.
 * Connection ids are serial over a server's lifetime (a later run may use ids 13–18), so the
 * waterfall passes the connection's rank within the run, not the raw id, and names the id in
 * the legend: any 12 connections of one run get 12 different colours.
 * @param {number} n
 */
export function connectionColor(n) {
  if (!Number.isInteger(n) || n < 1) return failedColor;
  return connectionPalette[(n - 1) % connectionPalette.length];
}

/** Legend text of a connection id. @param {number|null} id */
export const connectionLabel = (id) => (id !== null && Number.isInteger(id) && id >= 1 ? `connection ${id}` : 'connection unknown');

/**
 * `#RRGGBB` with an alpha channel, for fills drawn under other marks.
 * @param {string} hex
 * @param {number} alpha 0–1
 */
export function withAlpha(hex, alpha) {
  const a = Math.round(Math.min(1, Math.max(0, alpha)) * 255)
    .toString(16)
    .padStart(2, '0');
  return `${hex.slice(0, 7)}${a}`;
}
