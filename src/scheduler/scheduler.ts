/**
 * The scheduler: one trigger per router × job from the config's schedules, a stable jitter per router,
 * a global cap on runs in flight. A slow or hanging router only ever holds its own jobs.
 */
import type { Logger } from 'pino';
import type { Config, RouterConfig } from '../config/types.js';
import { jobsFor } from '../collectors/registry.js';
import type { JobContext } from '../collectors/types.js';
import type { JobPlan, SnapshotStore } from '../metrics/store.js';
import { labelPair } from '../metrics/text.js';
import { cronIntervalSeconds } from '../config/cron.js';
import { JobRunner, type RunResult } from './runner.js';
import { Semaphore } from './semaphore.js';
import { jitterMs } from './jitter.js';
import { cronTrigger, type Trigger, type TriggerFactory } from './trigger.js';

export interface SchedulerDeps {
  store: SnapshotStore;
  logger: Logger;
  /** The client for a router (the app owns and reuses clients across reloads). */
  clientFor: (router: RouterConfig) => JobContext['client'];
  now?: () => number;
  triggerFactory?: TriggerFactory;
  /** Global cap on runs in flight. */
  maxInFlight?: number;
  /** Off in tests that drive ticks by hand. */
  jitter?: boolean;
}

export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #semaphore: Semaphore;
  #runners = new Map<string, JobRunner>();
  #triggers: Trigger[] = [];
  #timers = new Set<NodeJS.Timeout>();
  #started = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#semaphore = new Semaphore(deps.maxInFlight ?? 32);
  }

  /** Builds runners for the config (keeping the memory and backoff of jobs that stay) and plans the store. */
  load(config: Config): void {
    const now = this.#deps.now ?? Date.now;
    const next = new Map<string, JobRunner>();
    const plans = new Map<string, JobPlan[]>();
    for (const router of config.routers) {
      const logger = this.#deps.logger.child({ router: router.name });
      const routerLabel = labelPair('router', router.name);
      const client = this.#deps.clientFor(router);
      const jobPlans: JobPlan[] = [];
      for (const definition of jobsFor(router)) {
        const runner = new JobRunner({
          router,
          definition,
          client,
          store: this.#deps.store,
          semaphore: this.#semaphore,
          logger: logger.child({ collector: definition.collector }),
          now,
          routerLabel,
        });
        const old = this.#runners.get(runner.key);
        if (old !== undefined) {
          runner.memory = old.memory;
          // A backoff is about the old settings: after a fixed password (a new client) try again at once.
          if (old.deps.client === client) runner.backoff = old.backoff;
        }
        next.set(runner.key, runner);
        jobPlans.push({ collector: definition.collector, job: definition.job });
      }
      plans.set(router.name, jobPlans);
    }
    for (const [key, runner] of this.#runners) if (next.get(key) !== runner) runner.abort();
    this.#runners = next;
    this.#deps.store.plan(plans);
    if (this.#started) {
      this.#stopTriggers();
      this.#startTriggers();
    }
  }

  /** Starts the schedules; with `runNow`, every job also runs once right away (staggered by the jitter). */
  start(runNow = true): void {
    this.#started = true;
    this.#startTriggers();
    if (runNow) for (const runner of this.#runners.values()) this.#tickLater(runner, 0);
  }

  /** Runs every job once, now, and waits for all of them (the `once` and `check` commands). */
  async runAllOnce(): Promise<RunResult[]> {
    return Promise.all([...this.#runners.values()].map((runner) => runner.trigger()));
  }

  /** Stops the schedules and aborts in-flight requests; resolves when every run has settled. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#stopTriggers();
    for (const runner of this.#runners.values()) runner.abort();
    await Promise.all([...this.#runners.values()].map((runner) => runner.settled()));
  }

  get jobCount(): number {
    return this.#runners.size;
  }

  #startTriggers(): void {
    const trigger = this.#deps.triggerFactory ?? cronTrigger;
    for (const runner of this.#runners.values()) {
      const { definition, router } = runner.deps;
      const interval = cronIntervalSeconds(definition.schedule);
      const delay = this.#deps.jitter === false ? 0 : jitterMs(router.name, interval);
      this.#triggers.push(trigger(definition.schedule, () => this.#tickLater(runner, delay), `${router.name}/${definition.job}`));
    }
  }

  #tickLater(runner: JobRunner, delayMs: number): void {
    if (delayMs <= 0) {
      void runner.trigger();
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void runner.trigger();
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  #stopTriggers(): void {
    for (const trigger of this.#triggers) trigger.stop();
    this.#triggers = [];
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
