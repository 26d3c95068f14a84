/** Timeouts and run lengths against the schedules that actually run (STYLE rule 4: timeouts shorter than the interval). */
import { cronIntervalSeconds } from './cron.js';
import { formatDuration } from './duration.js';
import type { Located } from './slot.js';
import type { Problems } from './problems.js';

export interface ScheduleUse {
  /** How the user names it: `schedules.system`, `ping[0].schedule`. */
  label: string;
  expression: string;
  /** Where it was set, or undefined for a built-in default. */
  setAt: string | undefined;
  /** For a ping or bandwidth test: how long one run takes, and the entry's path. */
  run?: { seconds: number; what: string; path: string };
}

function origin(setAt: string | undefined): string {
  return setAt === undefined ? 'built-in default' : `set at ${setAt}`;
}

/** `schedules.system "0 * * * * *" (built-in default)`; a target's own schedule is named by its path already. */
function describeUse(use: ScheduleUse): string {
  const where = use.setAt === use.label ? '' : ` (${origin(use.setAt)})`;
  return `${use.label} ${JSON.stringify(use.expression)}${where}`;
}

export function checkSchedules(
  uses: readonly ScheduleUse[],
  timeout: { seconds: number; at: Located<number> | undefined },
  timeoutPath: string,
  problems: Problems,
): void {
  let shortest: { use: ScheduleUse; seconds: number } | undefined;
  for (const use of uses) {
    const seconds = cronIntervalSeconds(use.expression);
    if (shortest === undefined || seconds < shortest.seconds) shortest = { use, seconds };
    if (use.run !== undefined && use.run.seconds >= seconds) {
      problems.add(
        use.run.path,
        `a run takes ${use.run.what} = ${formatDuration(use.run.seconds)}, not shorter than the ${formatDuration(seconds)} ` +
          `between runs of ${describeUse(use)}`,
      );
    }
  }
  if (shortest !== undefined && timeout.seconds >= shortest.seconds) {
    const { use, seconds } = shortest;
    problems.add(
      timeoutPath,
      `${formatDuration(timeout.seconds)}${timeout.at?.path === timeoutPath ? '' : ` (${origin(timeout.at?.path)})`} ` +
        `must be shorter than the ${formatDuration(seconds)} ` +
        `between runs of ${describeUse(use)}`,
    );
  }
}
