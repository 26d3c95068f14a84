/**
 * The clock seam of the scheduler: production uses node-cron, tests use a manual trigger.
 */
import cron from 'node-cron';

export interface Trigger {
  stop(): void;
}

export type TriggerFactory = (expression: string, onTick: () => void, name: string) => Trigger;

/** node-cron, seconds field allowed. Overlap is handled by the job runner, which knows about in-flight runs. */
export const cronTrigger: TriggerFactory = (expression, onTick, name) => {
  const task = cron.schedule(expression, onTick, { name, noOverlap: false });
  return {
    stop: () => {
      void task.destroy();
    },
  };
};
