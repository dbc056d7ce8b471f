// --repeats auto and its flags (--max-repeats, --budget, --aim) as every command that measures
// until decided reads and says them: the experiments and the replayed page loads.
import { untilDecided } from '../common/setup/settings.js';
import { aimRule, budgetRule, budgetSeconds, maxRepeatsRule } from '../common/stats/until-decided.js';
import { got, usageError } from './options.js';

/**
 * --repeats auto --max-repeats N [--budget TIME] [--aim PCT]: rounds until decided (common/stats/until-decided.js).
 * @typedef {object} UntilDecided
 * @property {number} maxRepeats  the cap per point
 * @property {number|null} budgetS  no round starts once the command has run this long
 * @property {number|null} aimPercent  a point stops once its runs could find this difference (stopReason)
 */

/**
 * The flags beside --repeats auto, as usage lines whose text starts at `column`.
 * @param {number} column
 */
export function untilDecidedUsage(column) {
  const lines = [
    ['--max-repeats N', `with auto: the cap per point, ${untilDecided.maxRepeats.min}–${untilDecided.maxRepeats.max}`],
    ['--budget TIME', 'with auto: start no round once the command has run this long (90s, 30m, 2h;'],
    ['', 'at most 168h); finished rounds are kept (default no budget)'],
    ['--aim PCT', "with auto: a point also stops once every undecided verdict's runs could"],
    ['', `find a difference of PCT % (80 % power), ${untilDecided.aimPercent.min}–${untilDecided.aimPercent.max} (default none)`],
  ];
  return lines.map(([flag, text]) => `  ${flag.padEnd(column - 2)}${text}`).join('\n');
}

/** readArgs specs of those flags. @type {Record<'max-repeats'|'budget'|'aim', import('./options.js').OptionSpec>} */
export const untilDecidedSpec = {
  'max-repeats': { type: 'string', accepts: maxRepeatsRule },
  budget: { type: 'string', accepts: budgetRule },
  aim: { type: 'string', accepts: aimRule },
};

/**
 * --repeats auto with --max-repeats, --budget and --aim, which mean nothing without it.
 * @param {Record<string, any>} values  readArgs'
 * @returns {UntilDecided | null}
 */
export function readUntilDecided(values) {
  const auto = values.repeats?.trim().toLowerCase() === 'auto';
  if (!auto) {
    const stray = ['max-repeats', 'budget', 'aim'].find((flag) => values[flag] !== undefined);
    if (stray) throw usageError(stray, `only with --repeats auto, which runs rounds until decided; with --repeats ${values.repeats ?? 'N'} every point runs that many`);
    return null;
  }
  const capText = values['max-repeats'];
  if (capText === undefined) throw usageError('repeats', `auto needs --max-repeats N, the cap per point: ${maxRepeatsRule}`);
  const cap = /^\d{1,4}$/.test(capText.trim()) ? Number(capText) : NaN;
  const { min, max } = untilDecided.maxRepeats;
  if (!(cap >= min && cap <= max)) throw usageError('max-repeats', `must be ${maxRepeatsRule}, ${got(capText)}`);
  const budgetText = values.budget;
  const budgetS = budgetText === undefined ? null : budgetSeconds(budgetText);
  if (budgetText !== undefined && budgetS === null) throw usageError('budget', `must be ${budgetRule}, ${got(budgetText)}`);
  return { maxRepeats: cap, budgetS, aimPercent: readAim(values.aim) };
}

/**
 * --aim PCT: a whole percentage within untilDecided.aimPercent, or null when not given.
 * @param {string|undefined} text
 */
function readAim(text) {
  if (text === undefined) return null;
  const aim = /^\d{1,3}$/.test(text.trim()) ? Number(text) : NaN;
  const { min, max } = untilDecided.aimPercent;
  if (!(aim >= min && aim <= max)) throw usageError('aim', `must be ${aimRule}, ${got(text)}`);
  return aim;
}
