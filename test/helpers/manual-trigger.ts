/** A trigger factory the test fires by hand, in place of node-cron. */
import type { TriggerFactory } from '../../src/scheduler/trigger.js';

export class ManualTriggers {
  readonly ticks = new Map<string, () => void>();

  readonly factory: TriggerFactory = (_expression, onTick, name) => {
    this.ticks.set(name, onTick);
    return { stop: () => this.ticks.delete(name) };
  };

  fire(name: string): void {
    const tick = this.ticks.get(name);
    if (tick === undefined) throw new Error(`no trigger ${name}; have ${[...this.ticks.keys()].join(', ')}`);
    tick();
  }
}
