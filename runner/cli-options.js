// Option readers the runner's commands share, so `--repeats` or `--preset` mean and say the same
// everywhere: a bad value throws one line naming the flag, its rule and what was given.
import path from 'node:path';
import { isOffline, presetByName, presets } from '../common/presets.js';

const decimalPattern = /^(\d+(\.\d*)?|\.\d+)$/;

/** A plain decimal (or integer) within bounds; no signs, exponents or units. */
export function readNumber(flag, raw, { min, max, integer = false }) {
  const n = Number(raw);
  if (!(integer ? /^\d+$/ : decimalPattern).test(String(raw)) || n < min || n > max) {
    throw new Error(`--${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

/** A preset by id or label; Offline is refused, since nothing would load. */
export function readPreset(flag, raw) {
  const preset = presetByName(raw);
  if (!preset || isOffline(preset)) {
    const names = presets.filter((p) => !isOffline(p)).map((p) => p.id).join(', ');
    throw new Error(`--${flag} must be one of ${names} (or its label), got "${raw}"`);
  }
  return preset;
}

/** One of a fixed list. */
export function readChoice(flag, raw, choices) {
  if (!choices.includes(raw)) throw new Error(`--${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, got "${raw}"`);
  return raw;
}

/**
 * --out: a directory the user typed is relative to where they typed it (npm runs scripts in the
 * package root and passes that place as INIT_CWD); by default results/<prefix><UTC time>.
 */
export function readOutDir(text, env, now, prefix = '') {
  if (text !== undefined && text.trim() === '') throw new Error('--out: needs a directory');
  if (text !== undefined) return path.resolve(env.INIT_CWD ?? process.cwd(), text);
  // An ISO time without ':' (not allowed in Windows file names) sorts by date; results/ is the project's.
  const stamp = now.toISOString().slice(0, 19).replaceAll(':', '-');
  return path.resolve('results', `${prefix}${stamp}`);
}
