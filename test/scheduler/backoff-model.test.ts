/**
 * The backoff and its gauge against a model, over random histories of one job of one router: ticks, the router
 * answering with success, a refused login, another failure or silence (a run that waits out its deadline), time
 * advancing by random amounts (to a backoff's end exactly, a millisecond short of it, into it, to a silent run's
 * deadline, across ticks, long idles), and reloads that replace the job (its labels changed: the store starts the
 * router afresh, the new job takes the backoff over and runs at once) or leave it alone. It drives the real
 * Scheduler, JobRunner, Backoff and SnapshotStore, with a fake client, manual triggers and vitest's fake clock, and
 * reads the gauge from the router's exposition, as a scrape would.
 *
 * It came from a hostile review, whose generator of such histories found routeros_collector_backoff_seconds above
 * 0 on ticks that ran and at 0 on ticks that were skipped. The model is written from the policy (backoff.ts's
 * header and comments), not from its code, so that the two can disagree. A failing history's message names its
 * seed: FIRST_SEED set to it and HISTORIES to 1 replay it alone.
 */
import { describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { DEADLINE_GRACE_SECONDS } from '../../src/scheduler/runner.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { testConfig } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { Rng } from '../../src/emulator/util/rng.js';

const logger = pino({ level: 'silent' });
/** One job (`system`, one request a run), so the client's calls count its runs. */
const SYSTEM_ONLY = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));
const TIMEOUT_SECONDS = 2;
/** A silent router's run ends when its deadline (the system job's: the router's timeout) and the grace pass. */
const SILENT_RUN_MS = (TIMEOUT_SECONDS + DEADLINE_GRACE_SECONDS) * 1000;

/**
 * The policy, stated rather than imported, so that a change to it has to change this test too: a refused login
 * backs off from the first failure, anything else from the third; 30 s, doubling with each further failure of the
 * class, up to 10 minutes for logins and 2 minutes for the rest.
 */
const POLICY = {
  initialSeconds: 30,
  auth: { threshold: 1, capSeconds: 600 },
  other: { threshold: 3, capSeconds: 120 },
} as const;
const LARGEST_CAP_SECONDS = Math.max(POLICY.auth.capSeconds, POLICY.other.capSeconds);

const FIRST_SEED = 0x5eed;
const HISTORIES = 200;
const MIN_STEPS = 20;
const MAX_STEPS = 60;

/** The emulator's seeded generator (mulberry32): the same on every run, so a failing history can be replayed. */
function mulberry32(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

type Answer = 'ok' | 'auth' | 'other' | 'silent';
type FailureClass = 'auth' | 'other';

/** Other failures of several reasons: any reason but a refused login is one class (backoff.ts). */
const OTHER_FAILURES = [
  () => new RouterOsError('ROS_ERR_HTTP_5XX', 'GET /rest/system/resource: HTTP 503', { status: 503 }),
  () => new RouterOsError('ROS_ERR_CONNECT', 'connect ECONNREFUSED 192.0.2.1:443'),
  () => new RouterOsError('ROS_ERR_TLS', 'certificate has expired'),
  () => new RouterOsError('ROS_ERR_PARSE', 'GET /rest/system/resource: not JSON'),
];
const REFUSALS = [
  () => new RouterOsError('ROS_ERR_AUTH', 'GET /rest/system/resource: HTTP 401', { status: 401 }),
  () => new RouterOsError('ROS_ERR_PERMISSION', 'GET /rest/system/resource: HTTP 403', { status: 403, policy: 'rest-api' }),
];

/**
 * What the backoff and its gauge should be, from the policy alone. Times are the runner's monotonic clock (the
 * fake performance.now), in ms.
 */
class Model {
  /** Failures of each class since the last success: one class's failures neither end nor feed the other's streak. */
  readonly streak: Record<FailureClass, number> = { auth: 0, other: 0 };
  /** When the backoff in force ends (none is in force at or after it). */
  until = 0;
  /** Backoffs so far: a failure that starts one while none is in force starts a new one; extending it does not. */
  backoffs = 0;
  /** The backoff a reload's run was let through already (one per backoff). */
  letThroughOf = -1;
  /** What the gauge was last set to: the seconds left then, rounded up. It does not count down. */
  shown = 0;
  /** A run waiting out its deadline on a silent router: it fails with a timeout then, unless a reload aborts it. */
  running: { endsAt: number } | undefined;
  /** The last run's outcome, whatever the router's labels were then: what routeros_up tells (the system job's). */
  lastRun: 'ok' | 'failed' | undefined;
  /** Whether a run finished since the router's labels last changed: a success's series were under the old ones. */
  ranSinceRelabel = false;

  inForce(now: number): boolean {
    return now < this.until;
  }

  remainingSeconds(now: number): number {
    return this.inForce(now) ? Math.ceil((this.until - now) / 1000) : 0;
  }

  /**
   * routeros_up: the last run's outcome. A failure is told under the router's new labels too, until a run ends it
   * (a router failing before its labels changed is failing after); a success only once a run under them succeeded,
   * as its data series are the run's. Unknown (no series) before.
   */
  up(): number | undefined {
    if (this.lastRun === 'failed') return 0;
    return this.lastRun === 'ok' && this.ranSinceRelabel ? 1 : undefined;
  }

  /** The gauge: as last shown while that backoff is in force, 0 from the moment it ends. */
  gauge(now: number): number {
    return this.inForce(now) ? this.shown : 0;
  }

  succeeded(): void {
    this.lastRun = 'ok';
    this.ranSinceRelabel = true;
    this.streak.auth = 0;
    this.streak.other = 0;
    this.until = 0;
    this.shown = 0;
  }

  failed(failure: FailureClass, now: number): void {
    this.lastRun = 'failed';
    this.ranSinceRelabel = true;
    const policy = POLICY[failure];
    const count = ++this.streak[failure];
    if (count >= policy.threshold) {
      const seconds = Math.min(policy.capSeconds, POLICY.initialSeconds * 2 ** (count - policy.threshold));
      // Never shortened: a failure whose own backoff would end before the one in force leaves it as it is.
      if (now + seconds * 1000 >= this.until) {
        if (!this.inForce(now)) this.backoffs++;
        this.until = now + seconds * 1000;
      }
    }
    this.shown = this.remainingSeconds(now);
  }

  /** Time passes to `now`: a silent run whose deadline passed by then has failed at its deadline. */
  advance(now: number): void {
    if (this.running !== undefined && this.running.endsAt <= now) {
      const { endsAt } = this.running;
      this.running = undefined;
      this.failed('other', endsAt);
    }
  }

  /** A run starts at `now` with the router answering `answer`. */
  run(answer: Answer, now: number): void {
    if (answer === 'ok') this.succeeded();
    else if (answer === 'silent') this.running = { endsAt: now + SILENT_RUN_MS };
    else this.failed(answer, now);
  }

  /** A scheduled tick: whether it runs (not while the job's run is in flight, nor while a backoff is in force). */
  tick(answer: Answer, now: number): boolean {
    if (this.running !== undefined || this.inForce(now)) return false;
    this.run(answer, now);
    return true;
  }

  /**
   * A reload that replaces the job: the old job's run in flight is aborted (it records nothing), the new job shows
   * the backoff it took over, and runs at once, through a backoff in force once per backoff.
   */
  replaced(answer: Answer, now: number): boolean {
    this.running = undefined;
    this.ranSinceRelabel = false;
    this.shown = this.remainingSeconds(now);
    if (this.inForce(now)) {
      if (this.letThroughOf === this.backoffs) return false;
      this.letThroughOf = this.backoffs;
    }
    this.run(answer, now);
    return true;
  }
}

type Step =
  | { kind: 'tick' }
  | { kind: 'answer'; answer: Answer; variant: number }
  | { kind: 'advance'; ms: number; why: string }
  | { kind: 'reload'; replace: boolean; answer: (Step & { kind: 'answer' }) | undefined };

function describeStep(step: Step): string {
  switch (step.kind) {
    case 'tick':
      return 'tick';
    case 'answer':
      return `router answers ${step.answer}`;
    case 'advance':
      return `advance ${step.ms} ms (${step.why})`;
    case 'reload':
      return `${step.answer === undefined ? '' : `${describeStep(step.answer)}, then `}${step.replace ? 'reload replacing the job' : 'reload leaving the job'}`;
  }
}

/**
 * The router's next answer. Failures weigh more than successes, which end every streak: the edges are where long
 * streaks of both classes meet.
 */
function answerStep(random: () => number): Step & { kind: 'answer' } {
  const answers = ['ok', 'auth', 'auth', 'other', 'other', 'silent', 'silent'] as const;
  return { kind: 'answer', answer: answers[Math.floor(random() * answers.length)] as Answer, variant: Math.floor(random() * 4) };
}

/** The next step, drawn with the model's state in view, so that the edges (a backoff's end) are hit often. */
function nextStep(random: () => number, model: Model, now: number): Step {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const roll = random();
  if (roll < 0.3) return { kind: 'tick' };
  if (roll < 0.5) return answerStep(random);
  // Half the reloads come as the router's answer changes: the run a reload lets through then fails in the other
  // class than the backoff's, where one class's backoff could shorten the other's.
  if (roll < 0.68) return { kind: 'reload', replace: random() < 0.85, answer: random() < 0.5 ? answerStep(random) : undefined };
  const advances: { ms: number; why: string }[] = [
    { ms: 1 + Math.floor(random() * 2_000), why: 'a moment' },
    { ms: 1_000 * (1 + Math.floor(random() * 40)), why: 'whole seconds' },
    { ms: 1 + Math.floor(random() * 60_000), why: 'across ticks' },
    // The policy's own lengths (30 s, 60 s, 120 s): where a backoff started at a step would end.
    { ms: 1_000 * POLICY.initialSeconds * 2 ** Math.floor(random() * 3), why: 'one backoff length' },
  ];
  // Rarer than the others: a long idle ends every backoff, and histories should mostly live inside them.
  if (random() < 0.3) advances.push({ ms: 300_000 + Math.floor(random() * 900_000), why: 'a long idle' });
  if (model.inForce(now)) {
    const left = model.until - now;
    advances.push({ ms: left, why: "to the backoff's end" }, { ms: left, why: "to the backoff's end" });
    if (left > 1) {
      advances.push({ ms: left - 1, why: "1 ms short of the backoff's end" }, { ms: 1 + Math.floor(random() * (left - 1)), why: 'into the backoff' });
    }
  }
  if (model.running !== undefined) advances.push({ ms: model.running.endsAt - now, why: "to the silent run's deadline" });
  return { kind: 'advance', ...pick(advances) };
}

function configOf(site: string) {
  return testConfig({
    defaults: { username: 'u', password: 'p', timeout: `${TIMEOUT_SECONDS}s`, collectors: SYSTEM_ONLY },
    routers: [{ name: 'a', url: 'https://192.0.2.1', labels: { site } }],
  });
}

/** Lets a run started or ended get to its end: the runner's steps are promises, none of them waits on the clock. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

const GAUGE = /^routeros_collector_backoff_seconds\{router="a"[^}]*,collector="system"\} (\S+)$/m;
const UP = /^routeros_up\{router="a"[^}]*\} (\S+)$/m;

async function history(seed: number): Promise<void> {
  const random = mulberry32(seed);
  const steps = MIN_STEPS + Math.floor(random() * (MAX_STEPS - MIN_STEPS + 1));
  const client = new FakeClient();
  const store = new SnapshotStore();
  const triggers = new ManualTriggers();
  const exposition = new Exposition(store, new SelfMetrics({ version: 't' }));
  const scheduler = new Scheduler({ store, logger, clientFor: () => client, triggerFactory: triggers.factory, jitter: false });
  const model = new Model();
  let answer: Answer = 'ok';
  const answerWith = (step: Step & { kind: 'answer' }): void => {
    answer = step.answer;
    const variants = answer === 'auth' ? REFUSALS : OTHER_FAILURES;
    client.behaviour = answer === 'ok' ? 'ok' : answer === 'silent' ? 'hang' : (variants[step.variant % variants.length] as () => RouterOsError)();
  };
  let site = 0;
  /** Runs let through each backoff, as seen at the client. */
  const letThrough = new Map<number, number>();
  const log: string[] = [];

  const gauge = (): number => {
    const match = GAUGE.exec(exposition.routerText('text'));
    if (match === null) throw new Error(`seed ${seed}: no backoff gauge for router a; history: ${log.join(' | ')}`);
    return Number(match[1]);
  };

  // Not always a router that answers at first: most histories are about the failures' streaks.
  const first = answerStep(random);
  answerWith(first);
  log.push(describeStep(first));
  scheduler.load(configOf(`s${site}`));
  scheduler.start(false);
  try {
    for (let index = 0; index < steps; index++) {
      const before = performance.now();
      const step = nextStep(random, model, before);
      const calls = client.calls;
      const gaugeBefore = gauge();
      let expectedRun = false;
      let skippedTick = false;
      let reloadInForce = false;
      switch (step.kind) {
        case 'tick':
          expectedRun = model.tick(answer, before);
          skippedTick = !expectedRun && model.running === undefined;
          triggers.fire('a/system');
          break;
        case 'answer':
          answerWith(step);
          break;
        case 'advance':
          await vi.advanceTimersByTimeAsync(step.ms);
          model.advance(performance.now());
          break;
        case 'reload':
          if (step.answer !== undefined) answerWith(step.answer);
          if (step.replace) {
            reloadInForce = model.inForce(before);
            expectedRun = model.replaced(answer, before);
            site ^= 1;
          }
          scheduler.load(configOf(`s${site}`));
          break;
      }
      await settle();
      const now = performance.now();
      log.push(`${describeStep(step)} @${now}`);
      const at = `seed ${seed}, step ${index} (${describeStep(step)}) at ${now} ms; history: ${log.join(' | ')}`;
      const ran = client.calls - calls;
      const shown = gauge();

      // 2. A run on a tick (or a reload) exactly when the model says no backoff holds it off (and no run of the job
      // is in flight), or a reload's one let-through applies; time passing starts none.
      expect(ran, `runs: ${at}`).toBe(expectedRun ? 1 : 0);
      if (reloadInForce && ran > 0) {
        const count = (letThrough.get(model.backoffs) ?? 0) + 1;
        letThrough.set(model.backoffs, count);
        expect(count, `let-throughs of backoff ${model.backoffs}: ${at}`).toBeLessThanOrEqual(1);
      }

      // 1. The gauge is what the model says: the seconds left when it was last set, rounded up, while that backoff
      // is in force; 0 from the moment it ends, whether or not a run came in between. A tick skipped for the
      // backoff finds it above 0 (the review's property), and leaves it as it was.
      expect(shown, `gauge: ${at}`).toBe(model.gauge(now));
      if (skippedTick) {
        expect(gaugeBefore, `gauge on a skipped tick: ${at}`).toBeGreaterThan(0);
        expect(shown, `gauge after a skipped tick: ${at}`).toBe(gaugeBefore);
      }
      if (!model.inForce(now)) expect(shown, `gauge with no backoff in force: ${at}`).toBe(0);

      // 4. routeros_up tells the last run, across label changes: a router whose labels changed while it failed and
      // its backoff held the new job's run off showed no routeros_up at all until the backoff ended, up to 10
      // minutes in which alerts on its routeros_up 0 resolved (found by review).
      const up = UP.exec(exposition.routerText('text'))?.[1];
      expect(up === undefined ? undefined : Number(up), `routeros_up: ${at}`).toBe(model.up());

      // 3. Never negative, never above the longest backoff the policy has.
      expect(shown, `gauge below 0: ${at}`).toBeGreaterThanOrEqual(0);
      expect(shown, `gauge above the cap: ${at}`).toBeLessThanOrEqual(LARGEST_CAP_SECONDS);
    }
  } finally {
    await scheduler.stop();
  }
}

describe('backoff and its gauge against a model, over random histories', () => {
  it(`${HISTORIES} seeded histories of ${MIN_STEPS}–${MAX_STEPS} steps of one job: ticks, answers, time, reloads`, async () => {
    for (let seed = FIRST_SEED; seed < FIRST_SEED + HISTORIES; seed++) {
      // Faked per history: the runner's clock (performance) and its timers (the gauge's end, the deadline).
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
      try {
        await history(seed);
      } finally {
        vi.useRealTimers();
      }
    }
  });
});
