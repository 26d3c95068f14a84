import { ConfigValueError, quoteValue } from './value-error.js';

const SECONDS_PER_UNIT = { y: 365 * 86_400, w: 7 * 86_400, d: 86_400, h: 3_600, m: 60, s: 1, ms: 0.001 } as const;
type Unit = keyof typeof SECONDS_PER_UNIT;
const UNITS: readonly Unit[] = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];

// Prometheus' duration grammar: integer parts in descending unit order, each unit at most once.
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/**
 * A Prometheus-style config duration (`500ms`, `15s`, `5m`, `1h30m`, `1d`, `1w`, `1y`, or `0`) → seconds.
 * Throws `ConfigValueError` for anything else, including bare numbers other than 0: a unit is required.
 */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const match = DURATION.exec(text);
  if (match === null || text === '') {
    const whole = wholeUnits(text);
    throw new ConfigValueError(
      whole === undefined
        ? `${quoteValue(text)} is not a duration (use e.g. 500ms, 15s, 5m, 1h30m)`
        : `${quoteValue(text)} is not a duration: each unit takes a whole number; write ${whole}`,
    );
  }
  let seconds = 0;
  UNITS.forEach((unit, i) => {
    const digits = match[i + 1];
    if (digits !== undefined) seconds += Number(digits) * SECONDS_PER_UNIT[unit];
  });
  if (!Number.isFinite(seconds)) throw new ConfigValueError(`${quoteValue(text)} is too long a duration`);
  // Milliseconds as thousandths accumulate float error; round to the millisecond the grammar can express.
  return Math.round(seconds * 1000) / 1000;
}

/**
 * A fraction like `1.5s` or `2.5h` in the grammar's own form (`1500ms`, `2h30m`), for the message that
 * refuses it; undefined when the text is no such fraction or it has no exact form in whole milliseconds.
 */
function wholeUnits(text: string): string | undefined {
  const fraction = /^(\d+\.\d+)(ms|s|m|h|d|w|y)$/.exec(text);
  if (fraction === null) return undefined;
  const ms = Number(fraction[1]) * SECONDS_PER_UNIT[fraction[2] as Unit] * 1000;
  if (!Number.isFinite(ms) || ms <= 0 || Math.abs(ms - Math.round(ms)) > 1e-6) return undefined;
  let rest = Math.round(ms);
  // Not whole seconds: one unit reads best (1.5s → 1500ms rather than 1s500ms).
  if (rest % 1000 !== 0) return `${rest}ms`;
  let out = '';
  for (const unit of UNITS) {
    const size = Math.round(SECONDS_PER_UNIT[unit] * 1000);
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return out;
}

/**
 * Seconds → a short human form for messages: `500ms` below a second, `45s` up to two minutes (so a
 * budget reads "60s", not "1m"), then Prometheus style: `5m`, `1h30m`, `1d`.
 */
export function formatDuration(seconds: number): string {
  if (seconds > 0 && seconds < 1) return `${Number((seconds * 1000).toFixed(3))}ms`;
  if (seconds < 120) return `${Number(seconds.toFixed(3))}s`;
  let rest = Math.round(seconds * 1000) / 1000;
  let text = '';
  for (const unit of UNITS) {
    const size = SECONDS_PER_UNIT[unit];
    const count = unit === 'ms' ? Math.round(rest / size) : Math.floor(rest / size);
    if (count > 0) {
      text += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return text;
}
