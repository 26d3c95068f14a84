/**
 * The scheduler: one trigger per router × job from the config's schedules, a stable jitter per router, a
 * router's reading jobs one after the other, a global cap on runs in flight, and a second one for the runs of
 * routers that did not answer their last run (standing.ts) and for runs that have held a permit of the first for
 * long (runner.ts). A slow or hanging router only ever holds its own jobs and, once it has failed to answer, no
 * permit an answering router needs. Reloads replace only the jobs whose definition changed.
 */
import type { Logger } from 'pino';
import type { Config, RouterConfig } from '../config/types.js';
import { jobsFor } from '../collectors/catalog.js';
import type { JobContext } from '../collectors/types.js';
import type { JobPlan, SnapshotStore } from '../metrics/store.js';
import type { RunCaps } from '../metrics/self.js';
import { routerLabel, type RouterLabel } from '../metrics/family.js';
import { cronIntervalSeconds } from '../config/cron.js';
import { JobRunner, type RunResult } from './runner.js';
import { Semaphore } from './semaphore.js';
import { ReadTurn } from './read-turn.js';
import { RouterStanding } from './standing.js';
import { jitterMs } from './jitter.js';
import { cronTrigger, setTriggerLogger, type Trigger, type TriggerFactory } from './trigger.js';
import { gatesReadiness, jobFingerprint } from './definition.js';
import { secretsAdded } from '../util/redact.js';

const monotonicNow = (): number => performance.now();

/**
 * The waiting runs' cap (silent routers' runs, and runs moved off the quick cap after runner.ts's
 * PATIENCE_SECONDS), as a multiple of the quick runs' cap. Runs that wait on a router hold a socket each and do no
 * work, so more of them may wait at once: with the same 32, 100 hanging routers of 2,000, two jobs each timing out
 * after 10 s, needed 2,000 permit-seconds a 30 s cycle from 960, and the exporter was ready only after 121 s as
 * their runs queued. Still bounded: runs moved here past its size are bounded by the rate the quick cap lets runs
 * start (runner.ts #moveWhenSlow), so runs in flight stay within a small multiple of maxInFlight.
 */
const SILENT_PERMITS_FACTOR = 4;
/**
 * The timed runs' cap (pings, bandwidth tests: runs that last seconds by design and do little work meanwhile: each
 * waits on its router's own command connection), as a multiple of the quick runs' cap: 512 runs at once, ~5,000
 * default pings (3 × 1 s) per 30 s. At 128, 3,000 routers with one ping each could not all ping every cycle
 * (found by review).
 */
const TIMED_PERMITS_FACTOR = 16;

export interface SchedulerDeps {
  store: SnapshotStore;
  logger: Logger;
  /** The client for a router (the app owns and reuses clients across reloads). */
  clientFor: (router: RouterConfig) => JobContext['client'];
  now?: () => number;
  /** Monotonic clock in ms for durations (runner.ts); performance.now() when absent. */
  elapsed?: () => number;
  /** The ms the process did not run since an instant of `elapsed` (util/pauses.ts, runner.ts). */
  paused?: (since: number) => number;
  triggerFactory?: TriggerFactory;
  /** The shortest counter window runs tell traffic movement from (JobContext); the daemon's when absent. */
  minCounterWindowSeconds?: number;
  /**
   * Global cap on the quick runs in flight (32): of answering routers, for their first 2 s. Runs that wait (of
   * silent routers, standing.ts, or past those 2 s) have a cap of 4 × as many of their own.
   */
  maxInFlight?: number;
  /** Off in tests that drive ticks by hand. */
  jitter?: boolean;
}

/** What a client's jobs share: its read turn and whether its router answers. Kept across reloads with the client. */
interface ClientShare {
  readonly readTurn: ReadTurn;
  readonly standing: RouterStanding;
}

/**
 * What a load made of one router: its jobs' keys, store plan and label, and what they were made from. A later load
 * handed the very same RouterConfig (the config's own object: nothing of it changed), with the same client, the same
 * lane and no secret registered since, keeps them as they are without building them again (below).
 */
interface RouterMade {
  readonly router: RouterConfig;
  readonly client: JobContext['client'];
  readonly low: boolean;
  readonly keys: readonly string[];
  readonly plans: JobPlan[];
  readonly label: RouterLabel;
}

/** What a load did: routers whose jobs it built (new, or from settings that changed) and routers it kept as they were. */
export interface LoadResult {
  built: number;
  kept: number;
}

/** A job the scheduler runs: its runner, what it was built from, and its schedule. */
interface Scheduled {
  readonly runner: JobRunner;
  readonly fingerprint: string;
  /** Whether `/-/ready` waits for this job's first run. */
  readonly gatesReadiness: boolean;
  trigger: Trigger | undefined;
  /** Pending jitter delays of this job's ticks. */
  readonly timers: Set<NodeJS.Timeout>;
}

export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #semaphore: Semaphore;
  /**
   * The waiting runs' cap (`waiting` in routeros_exporter_runs_in_flight; `#semaphore` is `quick`): runs of routers
   * that did not answer their last run, which wait out timeouts here, and runs moved off the quick cap.
   */
  readonly #silentSemaphore: Semaphore;
  /** The timed runs' cap (`timed`): runs that last seconds by design, pings and bandwidth tests (runner.ts #capForRun). */
  readonly #timedSemaphore: Semaphore;
  /**
   * The bandwidth tests' own share of the timed runs (maxInFlight): a test loads the link it measures, and often one
   * btest server; daily tests fire together at 03:00, and the timed cap's 512 would start that many at once.
   */
  readonly #bandwidthSemaphore: Semaphore;
  #jobs = new Map<string, Scheduled>();
  /**
   * Each client's read turn (runner.ts `readTurn`): its router's `reads` jobs run one after the other, as their
   * reads would take turns on its one connection anyway; and its router's standing.
   */
  #shares = new Map<JobContext['client'], ClientShare>();
  /** Each router's URL as of the last load: a router pointed at another one starts afresh in the store. */
  #urls = new Map<string, string>();
  /** What the last load made of each router, and the count of secrets registered then (RouterMade). */
  #made = new Map<string, RouterMade>();
  #secretsAtLoad = -1;
  /**
   * Routers readiness has counted as tried (ready()): kept, so that a router found silent and then answering
   * before its other jobs ran does not take readiness back. A reload that adds or replaces a router's job that
   * gates readiness forgets it, and that job's first run counts again (as before it was ever counted).
   */
  readonly #counted = new Set<string>();
  /** Routers whose runs wait in the semaphore's low lane (discovered targets), as of the last load. */
  #low: ReadonlySet<string> = new Set();
  #started = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    if (deps.triggerFactory === undefined) setTriggerLogger(deps.logger);
    const maxInFlight = deps.maxInFlight ?? 32;
    this.#semaphore = new Semaphore(maxInFlight);
    this.#silentSemaphore = new Semaphore(maxInFlight * SILENT_PERMITS_FACTOR);
    this.#timedSemaphore = new Semaphore(maxInFlight * TIMED_PERMITS_FACTOR);
    this.#bandwidthSemaphore = new Semaphore(maxInFlight);
  }

  /**
   * Builds runners for the config and plans the store. A job whose definition (definition.ts) did not change
   * keeps its runner whole: the run in flight goes on and records, its trigger and backoff stay. A changed job
   * gets a new runner (keeping its memory, and its backoff unless the client changed): its run in flight is
   * aborted and the new one runs at once, as does a job the reload added. Removed jobs stop. Runs of the routers
   * named in `low` (discovered targets) take a permit only when no other run waits for one (semaphore.ts).
   *
   * A router handed as the same object as last time is kept whole, its jobs not fingerprinted again: a discovered
   * target created or forgotten loads every router (the registry's pacing), and at 10,000 discovered targets that
   * load held the event loop ~0.5 s, two fifths of it hashing settings that had not changed (found by review).
   * Not when a secret was registered since: the labels' redaction, and so the fingerprints, may differ.
   */
  load(config: Config, low: ReadonlySet<string> = new Set()): LoadResult {
    this.#low = low;
    // Clients first: a new one registers its router's secrets, which the labels below are redacted against.
    const clients = config.routers.map((router) => this.#deps.clientFor(router));
    const secrets = secretsAdded();
    const reusable = secrets === this.#secretsAtLoad ? this.#made : new Map<string, RouterMade>();
    const previous = this.#jobs;
    const made = new Map<string, RouterMade>();
    let kept = 0;
    const now = this.#deps.now ?? Date.now;
    const next = new Map<string, Scheduled>();
    const fresh: Scheduled[] = [];
    const plans = new Map<string, JobPlan[]>();
    const labels = new Map<string, RouterLabel>();
    const shares = new Map<JobContext['client'], ClientShare>();
    const urls = new Map<string, string>();
    const restarted = new Set<string>();
    /** Jobs whose backoff a new client ended: their gauge goes to 0 now, not when their next run records. */
    const backoffEnded: [string, string][] = [];
    /** Jobs that took over a backoff: their gauge is shown once the store has their router's entry. */
    const backoffKept: JobRunner[] = [];
    for (const [index, router] of config.routers.entries()) {
      const isLow = low.has(router.name);
      const client = clients[index] as JobContext['client'];
      urls.set(router.name, router.url);
      // Another URL may be another device: what the old one collected (routeros_up 1 of the router the name used
      // to point at) is not this one's. Other connection settings (a timeout, a rotated password) keep it.
      const previousUrl = this.#urls.get(router.name);
      if (previousUrl !== undefined && previousUrl !== router.url) restarted.add(router.name);
      let share = shares.get(client) ?? this.#shares.get(client);
      if (share === undefined) share = { readTurn: new ReadTurn(), standing: new RouterStanding() };
      shares.set(client, share);
      const before = reusable.get(router.name);
      if (before !== undefined && before.router === router && before.client === client && before.low === isLow) {
        for (const key of before.keys) next.set(key, previous.get(key) as Scheduled);
        plans.set(router.name, before.plans);
        labels.set(router.name, before.label);
        made.set(router.name, before);
        kept++;
        continue;
      }
      const label = routerLabel(router.name, router.labels, isLow);
      const jobPlans: JobPlan[] = [];
      const keys: string[] = [];
      for (const definition of jobsFor(router)) {
        jobPlans.push({ collector: definition.collector, job: definition.job, waitsForSchedule: definition.waitsForSchedule === true });
        const key = `${router.name}\u0000${definition.job}`;
        keys.push(key);
        const fingerprint = jobFingerprint(router, definition, isLow);
        const old = previous.get(key);
        if (old !== undefined && old.fingerprint === fingerprint && old.runner.deps.client === client) {
          next.set(key, old);
          continue;
        }
        const runner = new JobRunner({
          router,
          definition,
          client,
          store: this.#deps.store,
          semaphore: this.#semaphore,
          standing: share.standing,
          silentSemaphore: this.#silentSemaphore,
          timedSemaphore: definition.waitsForSchedule === true ? this.#bandwidthSemaphore : this.#timedSemaphore,
          readTurn: definition.connection === 'reads' ? share.readTurn : undefined,
          lane: () => (this.#low.has(router.name) ? 'low' : 'high'),
          // The root: the runner makes its child of it when it first logs. A child of the root, not of a router's
          // child: a logger with children becomes their prototype, and V8 gives every prototype a map of its own.
          logger: this.#deps.logger,
          now,
          // Always present, never spread in: 4,000 runners keep one hidden class (Node 20 gives spreads their own).
          elapsed: this.#deps.elapsed ?? monotonicNow,
          paused: this.#deps.paused,
          minCounterWindowSeconds: this.#deps.minCounterWindowSeconds,
          routerLabel: label,
        });
        if (old !== undefined) {
          // What the job learnt of the device (its start, its probes' results, the parts it leaves out) is of the
          // device: at another URL the name may be another router, and the old one's start, believed over the new
          // one's, kept the new start from being believed for good (found by review).
          if (!restarted.has(router.name)) {
            runner.memory = old.runner.memory;
            runner.leftOut = old.runner.leftOut;
          }
          // A backoff is about the old settings: after a fixed password (a new client) try again at once.
          if (old.runner.deps.client === client) {
            runner.backoff = old.runner.backoff;
            backoffKept.push(runner);
          } else backoffEnded.push([router.name, definition.job]);
        }
        const scheduled: Scheduled = { runner, fingerprint, gatesReadiness: gatesReadiness(definition), trigger: undefined, timers: new Set() };
        // Readiness counts a router again only when it is another device to the exporter: new, or at another URL.
        // A job replaced for its labels, a timeout or a password kept the exporter unready until it ran, up to a
        // backoff's 10 minutes (found by review); a job added to a router already tried does not either.
        if (scheduled.gatesReadiness && (previousUrl === undefined || restarted.has(router.name))) this.#counted.delete(router.name);
        next.set(key, scheduled);
        fresh.push(scheduled);
      }
      plans.set(router.name, jobPlans);
      labels.set(router.name, label);
      made.set(router.name, { router, client, low: isLow, keys, plans: jobPlans, label });
    }
    this.#made = made;
    this.#secretsAtLoad = secrets;
    for (const [key, scheduled] of this.#jobs) {
      if (next.get(key) === scheduled) continue;
      this.#unschedule(scheduled);
      scheduled.runner.abort();
    }
    this.#jobs = next;
    this.#shares = shares;
    this.#urls = urls;
    // Routers gone (discovered targets come and go) are forgotten, so the set stays the config's size.
    for (const router of this.#counted) if (!plans.has(router)) this.#counted.delete(router);
    this.#deps.store.plan(plans, labels, restarted);
    for (const [router, job] of backoffEnded) this.#deps.store.setBackoff(router, job, 0);
    for (const runner of backoffKept) runner.showInheritedBackoff();
    if (this.#started) {
      for (const scheduled of fresh) {
        this.#schedule(scheduled);
        // Not at the next cron tick, which for a daily job is a day away; and not held off by a backoff kept from
        // the job it replaces (the router's labels changed: until it runs, the router has no series, and alerts on
        // its routeros_up 0 resolved). The backoff's streak goes on if it fails again.
        if (scheduled.runner.deps.definition.waitsForSchedule !== true) void scheduled.runner.trigger({ despiteBackoff: true });
      }
    }
    return { built: config.routers.length - kept, kept };
  }

  /** Starts the schedules; with `runNow`, every job also runs once right away, but those that wait for their schedule (bandwidth tests). */
  start(runNow = true): void {
    this.#started = true;
    for (const scheduled of this.#jobs.values()) {
      this.#schedule(scheduled);
      if (runNow && scheduled.runner.deps.definition.waitsForSchedule !== true) this.#tickLater(scheduled, 0);
    }
  }

  /**
   * Runs every job once, now, and waits for all of them (the `once` and `check` commands); with `select`, only the
   * jobs it picks by router name and job.
   */
  async runAllOnce(select?: (router: string, job: string) => boolean): Promise<RunResult[]> {
    const runners = [...this.#jobs.values()].map(({ runner }) => runner);
    const picked = select === undefined ? runners : runners.filter((runner) => select(runner.deps.router.name, runner.deps.definition.job));
    return Promise.all(picked.map((runner) => runner.trigger()));
  }

  /** Stops the schedules and aborts in-flight requests; resolves when every run has settled. */
  async stop(): Promise<void> {
    this.#started = false;
    for (const scheduled of this.#jobs.values()) {
      this.#unschedule(scheduled);
      scheduled.runner.abort();
    }
    await Promise.all([...this.#jobs.values()].map(({ runner }) => runner.settled()));
  }

  /**
   * True when every job that gates readiness (definition.ts: frequent ones, not bandwidth tests) has finished
   * at least once, successfully or not. Routers with no such job count as tried, and so do routers a run found
   * silent (standing.ts): their state is known, and their other jobs would only wait out their timeouts too (at
   * 2,000 routers with 500 hanging, readiness waited 165 s for them). A router once counted stays counted
   * (`#counted`): readiness does not go back to false without a reload, which would take the exporter out of
   * service in Kubernetes while it serves what it has. Discovered targets (`low`) never count: whoever can reach
   * /probe names them, so 1,000 allowed addresses that never answer held readiness for 160 s, and with it every
   * other target's scrape through the Service; a probe already waits for its own target's first run.
   */
  ready(): boolean {
    // Per router not yet counted: whether each of its gating jobs has finished so far (or the router is silent).
    const pending = new Map<string, boolean>();
    for (const { runner, gatesReadiness: gates } of this.#jobs.values()) {
      const router = runner.deps.router.name;
      if (!gates || this.#counted.has(router) || this.#low.has(router)) continue;
      if (pending.get(router) === false) continue;
      const tried = runner.deps.standing?.silent === true || this.#deps.store.snapshots(router).some((snapshot) => snapshot.job === runner.deps.definition.job);
      pending.set(router, tried);
    }
    let ready = true;
    for (const [router, tried] of pending) {
      if (tried) this.#counted.add(router);
      else ready = false;
    }
    return ready;
  }

  /**
   * Runs holding a permit, and runs waiting for one, of each cap: `quick` (the answering routers' first seconds),
   * `waiting` (silent routers' runs and runs moved off the quick cap) and `timed` (pings and bandwidth tests). Read at scrape time for
   * routeros_exporter_runs_in_flight and routeros_exporter_runs_queued.
   */
  occupancy(): RunCaps {
    return {
      quick: { inFlight: this.#semaphore.inUse, queued: this.#semaphore.waiting },
      waiting: { inFlight: this.#silentSemaphore.inUse, queued: this.#silentSemaphore.waiting },
      timed: {
        inFlight: this.#timedSemaphore.inUse + this.#bandwidthSemaphore.inUse,
        queued: this.#timedSemaphore.waiting + this.#bandwidthSemaphore.waiting,
      },
    };
  }

  get jobCount(): number {
    return this.#jobs.size;
  }

  #schedule(scheduled: Scheduled): void {
    if (scheduled.trigger !== undefined) return;
    const trigger = this.#deps.triggerFactory ?? cronTrigger;
    const { definition, router } = scheduled.runner.deps;
    const interval = cronIntervalSeconds(definition.schedule);
    const delay = this.#deps.jitter === false ? 0 : jitterMs(router.name, interval);
    scheduled.trigger = trigger(definition.schedule, () => this.#tickLater(scheduled, delay), `${router.name}/${definition.job}`);
  }

  #tickLater(scheduled: Scheduled, delayMs: number): void {
    if (delayMs <= 0) {
      void scheduled.runner.trigger();
      return;
    }
    const timer = setTimeout(() => {
      scheduled.timers.delete(timer);
      void scheduled.runner.trigger();
    }, delayMs);
    timer.unref();
    scheduled.timers.add(timer);
  }

  #unschedule(scheduled: Scheduled): void {
    scheduled.trigger?.stop();
    scheduled.trigger = undefined;
    for (const timer of scheduled.timers) clearTimeout(timer);
    scheduled.timers.clear();
  }
}
