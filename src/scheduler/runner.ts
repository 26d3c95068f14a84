/**
 * Runs one job of one router: never overlapping itself, after the router's other reading runs, under the global
 * cap on requests in flight, with a deadline, measured, and recorded whole in the snapshot store. Logs once per
 * state change.
 */
import type { Logger } from 'pino';
import type { RouterConfig } from '../config/types.js';
import type { JobContext, JobDefinition, OptionalRead } from '../collectors/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import type { RouterLabel } from '../metrics/family.js';
import { reasonOf, RouterOsError, summaryOf, type ErrorReason } from '../routeros/errors.js';
import { TIMEOUT_HINT } from '../routeros/transport-errors.js';
import type { Lane, Semaphore } from './semaphore.js';
import type { ReadTurn } from './read-turn.js';
import type { RouterStanding } from './standing.js';
import { Backoff } from './backoff.js';

export interface RunnerDeps {
  router: RouterConfig;
  definition: JobDefinition;
  client: JobContext['client'];
  store: SnapshotStore;
  /** The global cap on the quick runs in flight: of routers that answer, for their first PATIENCE_SECONDS. */
  semaphore: Semaphore;
  /**
   * Whether the router answers (shared by its jobs), and the cap of the runs that wait: those of a router while it
   * does not answer, and runs moved there after PATIENCE_SECONDS. A run of a router that hangs waits out its
   * timeout, and must not hold a permit an answering router needs. Without them every run takes `semaphore`'s.
   */
  standing?: RouterStanding | undefined;
  silentSemaphore?: Semaphore | undefined;
  /** The cap of the runs that last seconds by design (`runsForSeconds`: pings, bandwidth tests); `semaphore` without it. */
  timedSemaphore?: Semaphore | undefined;
  /**
   * The router's read connection, one run at a time (shared by the jobs of its client whose `connection` is
   * `reads`); absent for jobs on their own connections. Taken before the global permit and the deadline: a run
   * waiting for its router's other runs holds no permit, and its deadline has not started.
   */
  readTurn?: ReadTurn | undefined;
  /** The semaphore lane of the next run (high when absent): asked per run, as a reload may move the router. */
  lane?: () => Lane;
  /** The parent logger: the runner logs through a child bound to its router and collector, made when first used. */
  logger: Logger;
  now: () => number;
  /** Monotonic clock in ms for durations (backoff): a stepped wall clock must not stretch or cut them. */
  elapsed?: () => number;
  /**
   * The ms the process did not run since an instant of `elapsed` (util/pauses.ts). A run that timed out across a
   * pause of the process is not the router's failure: its timers ran on through the pause.
   */
  paused?: ((since: number) => number) | undefined;
  /** The shortest counter window runs tell traffic movement from (JobContext); the daemon's when undefined. */
  minCounterWindowSeconds?: number | undefined;
  routerLabel: RouterLabel;
}

export type RunResult = 'ok' | 'failed' | 'skipped';

/** The cap whose permit a run holds as it goes on (a slow run moves), and whether the run has ended. */
interface Holding {
  cap: Semaphore;
  ended: boolean;
  /** Moved off the quick cap and carried on `cap` past its capacity (Semaphore.force): it holds no permit. */
  carried: boolean;
}

const NO_MOVE = { cancel: (): void => undefined };

/**
 * How long a run holds one of the answering routers' permits before it moves to the silent routers' cap. A run
 * at fleet shape takes tens of milliseconds, and 1,000 peers' reads well under a second on the bench.
 */
export const PATIENCE_SECONDS = 2;

export class JobRunner {
  readonly deps: RunnerDeps;
  /** Kept across reloads by the scheduler. */
  memory = new Map<string, number>();
  backoff = new Backoff();
  /**
   * The parts successful runs left out (JobResult.optionalReads), each with its cause, until its read answers again;
   * made when one is first left out. Kept across reloads by the scheduler: a part left out before a reload and
   * answering after it is told.
   */
  leftOut: Map<string, string> | undefined;
  #running: Promise<RunResult> | undefined;
  #lastState: 'ok' | ErrorReason | undefined;
  #lastProblemCount = 0;
  /** Why the job was stopped (shutdown, or removed by a reload); undefined while it runs. */
  #stopped: Error | undefined;
  /**
   * The controller of the signal its runs wait for a permit and send their requests with, kept from run to run
   * until a run is stopped through it (its deadline passed, or the job stopped), then made again. One per run was
   * ~8,000 EventTarget objects a cycle at 2,000 routers, most of them living across the run's requests long enough
   * to be promoted to V8's old space; a second one per job for the stop alone, with its listener, was 4,000
   * controllers kept for good there.
   */
  #runController: AbortController | undefined;
  /**
   * Made when the job first logs, which a job that keeps succeeding never does: a pino child is ~0.4 KB, 1.6 MB of
   * V8's old space at 2,000 routers of two jobs each.
   */
  #logger: Logger | undefined;
  /**
   * Sets routeros_collector_backoff_seconds back to 0 when a backoff ends. Without it the figure stood until the
   * job's next run recorded: an hourly job showed a 30 s backoff for an hour after it had ended (found by review).
   */
  #backoffEnds: NodeJS.Timeout | undefined;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
  }

  get #log(): Logger {
    this.#logger ??= this.deps.logger.child({ router: this.deps.router.name, collector: this.deps.definition.collector });
    return this.#logger;
  }

  /**
   * The controller for the next run: the current one unless a run was stopped through it. Only asked for by a run
   * of a job not stopped; a stop after that aborts it (abort()).
   */
  #controllerForRun(): AbortController {
    let controller = this.#runController;
    if (controller === undefined || controller.signal.aborted) {
      controller = new AbortController();
      this.#runController = controller;
    }
    return controller;
  }

  #elapsed(): number {
    return this.deps.elapsed?.() ?? performance.now();
  }

  get key(): string {
    return `${this.deps.router.name}\u0000${this.deps.definition.job}`;
  }

  /**
   * Starts a run unless one is in flight (no overlap) or the job is backing off. `despiteBackoff`: the run a reload
   * starts at once for a job it replaced or added (scheduler.ts), which a backoff kept from the job before does not
   * hold off: the reload said to run it now (a backoff's streak still goes on from where it was).
   */
  trigger(options?: { despiteBackoff?: boolean }): Promise<RunResult> {
    if (this.#running !== undefined) {
      // Asked of the parent first: a line the level drops must not make the child it would have been written by.
      if (this.deps.logger.isLevelEnabled('debug')) this.#log.debug({ job: this.deps.definition.job }, 'previous run still in flight; skipping this tick');
      return Promise.resolve('skipped');
    }
    // Backoff is a duration: on the monotonic clock, so a wall clock set back an hour does not stretch 30 s to 61 min.
    const now = this.#elapsed();
    if (options?.despiteBackoff === true ? !this.backoff.letThrough(now) : this.backoff.active(now)) return Promise.resolve('skipped');
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /**
   * Shows a backoff this job took over from the job a reload replaced with it: its gauge, and its end. The store may
   * have started the router afresh (new labels) with the gauge at 0, and a job that does not run at once (a
   * bandwidth test) would have shown that until its next scheduled run (found by review).
   */
  showInheritedBackoff(): void {
    this.#showBackoff(this.backoff.remainingSeconds(this.#elapsed()));
  }

  /** The backoff's gauge now, and back to 0 when it ends. */
  #showBackoff(seconds: number): void {
    const { store, router, definition } = this.deps;
    store.setBackoff(router.name, definition.job, seconds);
    clearTimeout(this.#backoffEnds);
    if (seconds > 0) {
      // At the backoff's end exactly: the gauge is whole seconds rounded up, and a timer of that many showed a
      // backoff for up to a second after runs were let through again (found by a model generator).
      this.#backoffEnds = setTimeout(() => store.setBackoff(router.name, definition.job, 0), this.backoff.remainingMs(this.#elapsed()));
      this.#backoffEnds.unref();
    }
  }

  /** Resolves when the in-flight run (if any) has finished. */
  async settled(): Promise<void> {
    await this.#running;
  }

  /** Aborts the in-flight request (shutdown, or the job was removed by a reload). */
  abort(): void {
    if (this.#stopped !== undefined) return;
    clearTimeout(this.#backoffEnds);
    this.#stopped = new Error('job stopped');
    this.#runController?.abort(this.#stopped);
  }

  async #run(): Promise<RunResult> {
    const { definition, router, store, now, readTurn, standing } = this.deps;
    if (this.#stopped !== undefined) return 'skipped';
    // Where the run starts among the runs recorded: another job's success recorded after this says the router
    // answered while this run was under way (routeros_up).
    const startedAfter = store.recorded;
    const controller = this.#controllerForRun();
    // The cap whose permit the run holds: handed over with the turn by the router's run before it, or taken.
    let cap: Semaphore | undefined;
    if (readTurn !== undefined) {
      try {
        cap = await readTurn.acquire(controller.signal);
      } catch {
        return 'skipped';
      }
    }
    const wanted = this.#capForRun();
    if (cap === this.deps.semaphore && wanted !== cap) {
      // The router stopped answering in the run that handed the permit over: the permit goes back to the answering
      // routers, and this run waits for one of the silent routers' cap. (A permit of that cap handed to a router
      // that answers is kept: giving it up would queue the run behind the whole fleet while its connection is warm.)
      cap.release();
      cap = undefined;
    }
    if (cap === undefined) {
      try {
        cap = await this.#acquire(wanted, controller.signal);
      } catch {
        readTurn?.release(undefined);
        return 'skipped';
      }
    }
    // The cap as the run goes on: a run that holds the answering routers' for long moves (#moveWhenSlow).
    const holding: Holding = { cap, ended: false, carried: false };
    const move = this.#moveWhenSlow(holding);
    const started = performance.now();
    const startedElapsed = this.#elapsed();
    const deadline = startDeadline(definition.deadlineSeconds, controller);
    try {
      const run = definition.run({
        router,
        client: this.deps.client,
        routerLabel: this.deps.routerLabel,
        now,
        elapsed: () => this.#elapsed(),
        signal: deadline.signal,
        memory: this.memory,
        minCounterWindowSeconds: this.deps.minCounterWindowSeconds,
      });
      // Raced as well as signalled: a run that ignores its signal still ends at the deadline.
      const result = await Promise.race([run, deadline.passed]);
      if (this.#stopped !== undefined) return 'skipped';
      // Its families deflated before it is stored, the event loop given back in between: a router of tens of
      // thousands of peers makes families of megabytes (SampleSet.seal).
      const previous = store.chunksOf(router.name, definition.job);
      await Promise.race([result.samples.seal(previous, { signal: deadline.signal }), deadline.passed]);
      if (this.#stopped !== undefined) return 'skipped';
      store.record({
        router: router.name,
        collector: definition.collector,
        job: definition.job,
        ok: true,
        finishedAt: now(),
        finishedElapsed: this.#elapsed(),
        durationSeconds: (performance.now() - started) / 1000,
        samples: result.samples,
        data: result.data,
        decodeErrors: result.decodeErrors,
      });
      this.backoff.succeeded();
      standing?.ran('ok');
      this.#showBackoff(0);
      this.#transition('ok', undefined);
      this.#reportProblems(result.problems, result.decodeErrors);
      this.#reportOptionalReads(result.optionalReads);
      return 'ok';
    } catch (error) {
      if (this.#stopped !== undefined) return 'skipped';
      const reason = reasonOf(error);
      // Timed out across a pause of the process (a VM paused, SIGSTOP, a held loop): its request timer and deadline
      // ran on through the pause, and fired late, at the resume, before a reply in the socket (or one the router
      // resends once the VM runs again) was read. Not the router's silence: recorded as a failure, it made the router
      // down (router_down, then router_up at the next run, a flap no router had). Nothing is recorded; the next
      // run tells. Only when the time the process ran since the start is shorter than the run's deadline (its requests'
      // timeouts added up, a ping's count × interval with them): by the router's timeout alone, a ping that ran its
      // pings for longer than that before the pause was recorded as failed (ping_critical, then recovered).
      const paused = reason === 'timeout' ? (this.deps.paused?.(startedElapsed) ?? 0) : 0;
      if (paused > 0 && this.#elapsed() - startedElapsed - paused < definition.deadlineSeconds * 1000) {
        this.#log.info({ job: definition.job, paused_seconds: Math.round(paused / 1000) }, 'a run timed out across a pause of the exporter: not counted as a failure of the router, the next run tells');
        return 'skipped';
      }
      store.record({
        router: router.name,
        collector: definition.collector,
        job: definition.job,
        ok: false,
        reason,
        summary: summaryOf(error),
        code: error instanceof RouterOsError ? error.code : undefined,
        startedAfter,
        finishedAt: now(),
        finishedElapsed: this.#elapsed(),
        durationSeconds: (performance.now() - started) / 1000,
      });
      standing?.ran(reason);
      const backoffSeconds = this.backoff.failed(reason, this.#elapsed());
      this.#showBackoff(backoffSeconds);
      this.#transition(reason, error, backoffSeconds);
      return 'failed';
    } finally {
      deadline.clear();
      holding.ended = true;
      move.cancel();
      // The permit goes on with the turn when another of the router's runs waits for it (read-turn.ts). A carried run
      // holds none to hand on: the router's next run takes its own.
      if (holding.carried) {
        holding.cap.dropCarried();
        readTurn?.release(undefined);
      } else if (readTurn?.release(holding.cap) !== true) holding.cap.release();
    }
  }

  /**
   * A permit of `wanted`. A run that waited for one of the answering routers' and meanwhile learnt (from another run
   * of its router) that the router went silent gives it back at once and waits for one of the silent routers' cap
   * instead: its run would only wait out a timeout on it.
   */
  async #acquire(wanted: Semaphore, signal: AbortSignal): Promise<Semaphore> {
    const lane = this.deps.lane?.() ?? 'high';
    await wanted.acquire(signal, lane);
    const now = this.#capForRun();
    if (now === wanted) return wanted;
    wanted.release();
    await now.acquire(signal, lane);
    return now;
  }

  /**
   * A run that has held one of the answering routers' permits for its patience (PATIENCE_SECONDS) is most likely
   * waiting out a router that has just stopped answering (its standing says so only once the run ends): it gives
   * the answering routers their permit back and goes on carried by the silent routers' cap, counted there but
   * holding none of its permits (Semaphore.force). It once queued there for a permit first, and in a mass outage
   * (2,500 of 3,000 routers silent at once) the silent cap's queue never let it through, so every run of a newly
   * silent router kept its quick permit for its whole timeout and the 500 routers still answering were collected a
   * few dozen per cycle (found by review). Carried runs are bounded by the rate the quick cap lets runs reach their
   * patience, its size per PATIENCE_SECONDS, times how long they then last, at most the routers' timeout: ~160 at
   * 32 permits and a 10 s timeout, ~940 at the longest, 59 s. A run that is only slow moves too.
   */
  #moveWhenSlow(holding: Holding): { cancel(): void } {
    const { semaphore, silentSemaphore } = this.deps;
    if (holding.cap !== semaphore || silentSemaphore === undefined) return NO_MOVE;
    const timer = setTimeout(() => {
      if (holding.ended) return;
      silentSemaphore.force();
      semaphore.release();
      holding.cap = silentSemaphore;
      holding.carried = true;
    }, PATIENCE_SECONDS * 1000);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  }

  /**
   * The cap this run takes its permit under: the silent routers' own while the router does not answer; else the
   * timed runs' for a run that lasts seconds by design (a ping's count × interval, a bandwidth test), which held
   * the quick cap for that long and, at 600 routers with one default ping each, left their reads one run a minute
   * on 30 s schedules (found by review); else the quick cap.
   */
  #capForRun(): Semaphore {
    const { standing, silentSemaphore, semaphore, timedSemaphore, definition } = this.deps;
    // A bandwidth test keeps to its own share whatever its router's standing: the share bounds the links loaded at
    // once, and a silent router's test on the silent cap escaped it (found by review).
    if (definition.waitsForSchedule === true && timedSemaphore !== undefined) return timedSemaphore;
    if (standing?.silent === true && silentSemaphore !== undefined) return silentSemaphore;
    if ((definition.runsForSeconds ?? 0) > 0 && timedSemaphore !== undefined) return timedSemaphore;
    return semaphore;
  }

  #transition(state: 'ok' | ErrorReason, error: unknown, backoffSeconds = 0): void {
    const previous = this.#lastState;
    this.#lastState = state;
    if (previous === state) return;
    const { definition } = this.deps;
    if (state === 'ok') {
      if (previous !== undefined) this.#log.info({ job: definition.job }, 'collector recovered');
      return;
    }
    this.#log.warn(
      { job: definition.job, reason: state, ...(backoffSeconds > 0 ? { backoff_seconds: backoffSeconds } : {}) },
      `collector failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  /**
   * One warning when a part is left out or its cause changes (JobResult.optionalReads), naming every part this run
   * left out and why; one line when a part left out answers again. Not a line per run: a group that cannot run a
   * command stays so until someone changes it. A part is judged only by the runs that read it: a run with no
   * running ethernet port asks for no link rates, and says nothing of whether they would answer (a port flapping
   * logged a warning and an "answers again" every run; found by review).
   */
  #reportOptionalReads(reads: readonly OptionalRead[] | undefined): void {
    if (reads === undefined) return;
    let changed = false;
    let answeredAgain: string[] | undefined;
    for (const { what, failure } of reads) {
      if (failure === undefined) {
        // The common case, a part that answered and was not left out before, costs nothing (4,000 runs a cycle).
        if (this.leftOut?.delete(what) === true) (answeredAgain ??= []).push(what);
      } else if (this.leftOut?.get(what) !== failure.cause) {
        (this.leftOut ??= new Map()).set(what, failure.cause);
        changed = true;
      }
    }
    const { job } = this.deps.definition;
    if (changed) {
      const leftOut = reads.flatMap(({ what, failure }) => (failure === undefined ? [] : [`${what}: ${failure.message}`]));
      this.#log.warn({ job, left_out: leftOut }, 'a read that only adds to the run failed; the run stands without that part');
    }
    if (answeredAgain !== undefined) {
      this.#log.info({ job, answered_again: answeredAgain }, 'a read that only adds to the run answers again; the run has that part again');
    }
  }

  #reportProblems(problems: readonly string[], count: number): void {
    if (count > 0 && this.#lastProblemCount === 0) {
      this.#log.warn(
        { job: this.deps.definition.job, problems: problems.slice(0, 5), count },
        'some values from the router did not decode; their samples were left out',
      );
    }
    this.#lastProblemCount = count;
  }
}

interface Deadline {
  readonly signal: AbortSignal;
  /** Rejects with a `timeout` RouterOsError when the deadline passes; never resolves. */
  readonly passed: Promise<never>;
  clear(): void;
}

/**
 * Past the deadline a run is given this long before it is stopped: a deadline is the sum of its requests'
 * timeouts, and the request's own timeout, which fires at the same moment, says more (which request, the hint).
 */
export const DEADLINE_GRACE_SECONDS = 1;

/**
 * A run's deadline: aborts `controller` (its requests' signal) and fails the run with reason `timeout` once
 * `seconds` (plus the grace) have passed. A timer and a promise per run; the controller is the job's (it also
 * aborts when the job stops), not one per run, nor an AbortSignal.any, which costs a weak reference and a
 * finalizer on every run of every router.
 */
export function startDeadline(seconds: number, controller: AbortController): Deadline {
  let fail: (error: Error) => void = () => undefined;
  const passed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Without a listener, a deadline that passes after the run lost the race would be an unhandled rejection.
  passed.catch(() => undefined);
  const timer = setTimeout(() => {
    const error = new RouterOsError('ROS_ERR_TIMEOUT', `run still going after its deadline of ${seconds} s: ${TIMEOUT_HINT}`);
    controller.abort(error);
    fail(error);
  }, (seconds + DEADLINE_GRACE_SECONDS) * 1000);
  timer.unref();
  return {
    signal: controller.signal,
    passed,
    clear: () => clearTimeout(timer),
  };
}
