/**
 * The clock seam of the scheduler: production uses node-cron, tests use a manual trigger.
 *
 * One node-cron task per distinct expression, not per job: a fleet of 2,000 routers with two jobs each on the
 * same schedule holds one task (about 4 KiB and a timer each) instead of 4,000, and every subscriber of an
 * expression sees the same tick. node-cron still does all the cron arithmetic, so the semantics are its own.
 */
import cron, { type ScheduledTask } from 'node-cron';

export interface Trigger {
  stop(): void;
}

export type TriggerFactory = (expression: string, onTick: () => void, name: string) => Trigger;

interface Shared {
  readonly task: ScheduledTask;
  /** Each subscription is its own entry, so one callback subscribed twice is called twice and stopped once. */
  readonly listeners: Set<{ readonly onTick: () => void }>;
}

/** Exported for tests: how many node-cron tasks the shared triggers hold now. */
export function sharedTaskCount(): number {
  return shared.size;
}

const shared = new Map<string, Shared>();

function tick(listeners: Shared['listeners']): void {
  // A copy: a tick may stop or add subscriptions (a reload), which must not disturb this round.
  for (const listener of [...listeners]) listener.onTick();
}

/** node-cron, seconds field allowed. Overlap is handled by the job runner, which knows about in-flight runs. */
export const cronTrigger: TriggerFactory = (expression, onTick) => {
  let entry = shared.get(expression);
  if (entry === undefined) {
    const listeners: Shared['listeners'] = new Set();
    const task = cron.schedule(expression, () => tick(listeners), { name: `schedule ${expression}`, noOverlap: false });
    entry = { task, listeners };
    shared.set(expression, entry);
  }
  const subscription = { onTick };
  const own = entry;
  own.listeners.add(subscription);
  return {
    stop: () => {
      if (!own.listeners.delete(subscription) || own.listeners.size > 0) return;
      if (shared.get(expression) === own) shared.delete(expression);
      void own.task.destroy();
    },
  };
};
