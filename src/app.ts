/**
 * The app factory: builds the store, exposition, scheduler, clients and HTTP handler for a config.
 * It never listens by itself and never touches argv, signals or the process: main.ts owns those,
 * and tests drive the app in-process.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config/types.js';
import { ConfigError } from './config/types.js';
import { beginSecretGeneration, registerCredentials, secretsAdded } from './util/redact.js';
import { registerSecretsIn } from './util/secret.js';
import { profileWarnings, routerWarnings } from './config/warnings.js';
import { SnapshotStore } from './metrics/store.js';
import { Exposition } from './metrics/exposition.js';
import { RouterExposition } from './metrics/router-exposition.js';
import { SelfMetrics } from './metrics/self.js';
import { Scheduler } from './scheduler/scheduler.js';
import type { TriggerFactory } from './scheduler/trigger.js';
import { ClientPool } from './routeros/pool.js';
import { VERSION } from './version.js';
import { createRouter } from './server/router.js';
import type { ReloadResult } from './server/endpoints.js';
import { parseListen } from './server/listen.js';
import { sdGroupsOf } from './server/sd-groups.js';
import { watchVerdicts, type VerdictWatch } from './health/watch.js';
import { PauseWatch } from './util/pauses.js';
import { DiscoveryRegistry, SWEEP_SECONDS } from './discovery/registry.js';

export interface AppDeps {
  logger: Logger;
  /** Reads the config again for SIGHUP and POST /-/reload; absent → reload re-applies the current config. */
  loadConfig?: () => Promise<Config>;
  now?: () => number;
  /** Monotonic clock in ms for durations (backoff); performance.now() when absent. */
  elapsed?: () => number;
  /**
   * The ms the process did not run since an instant of `elapsed` (util/pauses.ts). When absent: a heartbeat's, on
   * performance.now(); none (0) with `elapsed` given.
   */
  paused?: (since: number) => number;
  triggerFactory?: TriggerFactory;
  jitter?: boolean;
  maxInFlight?: number;
  /** The shortest counter window runs tell traffic movement from (JobContext); the daemon's when absent. */
  minCounterWindowSeconds?: number;
  /**
   * Checks what a reloaded config names outside itself (the web config) before it applies: throws
   * (ConfigError) to refuse the reload, else returns what installs it once the reload goes through.
   */
  prepareReload?: (next: Config) => () => void;
}

export type { ReloadResult } from './server/endpoints.js';

export interface App {
  readonly store: SnapshotStore;
  readonly exposition: Exposition;
  readonly self: SelfMetrics;
  /** Routers from inventory (`profiles:`, /probe?target=&profile=): what tests drive and sweep by hand. */
  readonly discovery: DiscoveryRegistry;
  config(): Config;
  handle(req: IncomingMessage, res: ServerResponse): void;
  start(): void;
  /** Runs every job once (with `select`, the jobs it picks) and waits; true when every run succeeded. */
  collectOnce(select?: (router: string, job: string) => boolean): Promise<boolean>;
  reload(): Promise<ReloadResult>;
  ready(): boolean;
  stop(): Promise<void>;
}

/**
 * How long after a reload the next may start, as a multiple of the last one's duration (at most MAX_RELOAD_GAP_MS):
 * reloads asked for back to back take at most 1 / (1 + RELOAD_GAP_FACTOR) of the CPU; one asked for after a quiet
 * while starts at once.
 */
const RELOAD_GAP_FACTOR = 4;
const MAX_RELOAD_GAP_MS = 5_000;
/** Reloads shorter than this are not paced: a small config's reload costs next to nothing. */
const PACED_FROM_MS = 20;

/** A wait until a clock reads a time, which `end` cuts short. */
interface Wait {
  readonly done: Promise<void>;
  end(): void;
}

/** Resolves once `clock` reads `at` or later (at once when it does already), or when ended. */
function waitUntil(at: number, clock: () => number): Wait {
  const wait = at - clock();
  if (wait <= 0) return { done: Promise.resolve(), end: () => undefined };
  let end = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    // Unref'd: an exit that skips the app's stop must not wait for it either.
    const timer = setTimeout(resolve, wait);
    timer.unref();
    end = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { done, end };
}

/** What a reload asked for after the app stopped answers: nothing was applied. */
const STOPPED_RELOAD: ReloadResult = { ok: false, problems: [{ path: '', message: 'the exporter is shutting down; nothing was reloaded' }] };
/** A reload that failed once applying had begun: some of the new configuration may run, the rest is the previous. */
const PART_WAY = 'it failed while being applied: part of the new configuration may run (profiles, routers), the rest not';
const UNREPORTED_RELOAD: ReloadResult = {
  ok: false,
  problems: [{ path: '', message: 'the reload failed, and so did its report; the previous configuration keeps running' }],
};

/** A failed read's message: whatever it rejected with, even what String() cannot convert (no prototype). */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'the reload failed with an error that could not be described';
  }
}

/** How often idle discovered targets are looked for: far below any forget period (at least 1 min). */
const DISCOVERY_SWEEP_MS = SWEEP_SECONDS * 1000;

export function createApp(initial: Config, deps: AppDeps): App {
  const elapsed = deps.elapsed ?? ((): number => performance.now());
  // A pause of the process (a VM paused, SIGSTOP) is not a collection overdue: /health and the verdict log do not age
  // peers over it (health/evaluate.ts EvaluationOptions.paused), and a run timed out across it is not the router's
  // failure (scheduler/runner.ts).
  // On the process's own clock only: an injected one (tests) moves as its caller says, and its steps are not pauses.
  const pauses = deps.paused === undefined && deps.elapsed === undefined ? new PauseWatch(elapsed) : undefined;
  pauses?.start();
  const paused = deps.paused ?? ((since: number): number => pauses?.pausedSince(since) ?? 0);
  const store = new SnapshotStore();
  const self = new SelfMetrics({ version: VERSION });
  const exposition = new Exposition(store, self);
  const routerExposition = new RouterExposition(store, self);
  const clients = new ClientPool();
  const now = deps.now ?? Date.now;
  /**
   * The monotonic clock, one for every duration: the runs record on it (backoff, JobSnapshot.finishedElapsed), and
   * /health and the verdict log age peers by it; discovery's forget periods and the reloads' pacing run on it too.
   */
  const scheduler = new Scheduler({
    store,
    logger: deps.logger,
    clientFor: (router) => clients.clientFor(router),
    now,
    elapsed,
    paused,
    ...(deps.triggerFactory === undefined ? {} : { triggerFactory: deps.triggerFactory }),
    ...(deps.jitter === undefined ? {} : { jitter: deps.jitter }),
    ...(deps.maxInFlight === undefined ? {} : { maxInFlight: deps.maxInFlight }),
    ...(deps.minCounterWindowSeconds === undefined ? {} : { minCounterWindowSeconds: deps.minCounterWindowSeconds }),
  });
  self.watchRuns(() => scheduler.occupancy());
  let config = initial;
  const discovery = new DiscoveryRegistry({
    // Forget periods are durations: on the monotonic clock, as backoff is.
    now: elapsed,
    paused,
    store,
    logger: deps.logger,
    changed: () => loadRouters(config),
    metrics: {
      targets: (counts) => self.discoveredTargets(counts),
      created: (profile) => self.discoveryEvent('created', profile),
      forgotten: (profile, reason) => self.discoveryEvent('expired', profile, reason),
      refused: (profile, reason) => self.discoveryEvent('refused', profile, reason),
    },
  });
  /** Discovered routers run beside the configured ones; --shard never filters them (Prometheus' hashmod decides). */
  const loadRouters = (next: Config): void => {
    const discovered = discovery.routers();
    polled = discovered.length === 0 ? next : { ...next, routers: [...next.routers, ...discovered] };
    // Discovered runs yield the cap on runs in flight to configured ones (src/scheduler/semaphore.ts).
    scheduler.load(polled, new Set(discovered.map((router) => router.name)));
    clients.retain(new Set(polled.routers.map((router) => router.name)));
    verdictWatch?.reconfigured();
  };
  /** The config with the discovered routers beside the configured ones: what /health and the verdict log judge. */
  let polled = initial;
  /** Made once the first config is applied (below); told of every load after. */
  let verdictWatch: VerdictWatch | undefined = undefined;
  let sweeping: NodeJS.Timeout | undefined;

  /** Same address, however written (`:9731` is `0.0.0.0:9731`). */
  const sameListen = (a: string, b: string): boolean => {
    try {
      const [x, y] = [parseListen(a), parseListen(b)];
      return x.host === y.host && x.port === y.port;
    } catch {
      return a === b;
    }
  };

  /**
   * Top-level settings outside the scheduler's reach (docs/configuration.md, "What a reload applies"):
   * log_level applies at once (pino children follow their root's level); listen needs a restart, which is
   * said once per reload and kept visible in routeros_exporter_config_restart_required. Returns what waits
   * for a restart.
   */
  const applySettings = (previous: Config, next: Config): string[] => {
    if (next.logLevel !== previous.logLevel) {
      const line = (): void => deps.logger.info({ from: previous.logLevel, to: next.logLevel }, 'log level changed');
      // Said under whichever of the two levels lets an info line through.
      const before = deps.logger.isLevelEnabled('info');
      if (before) line();
      deps.logger.level = next.logLevel;
      if (!before) line();
    }
    const pending: string[] = [];
    if (!sameListen(next.listen, initial.listen)) {
      pending.push('listen');
      deps.logger.warn(
        { setting: 'listen', running: initial.listen, configured: next.listen },
        `listen changed to ${next.listen}: it takes a restart; the server keeps listening on ${initial.listen}`,
      );
    }
    self.restartRequired(pending.length > 0);
    return pending;
  };

  const apply = (next: Config): void => {
    // The same sentences check-config prints, from one place.
    for (const router of next.routers) {
      for (const warning of routerWarnings(router, '')) deps.logger.warn({ router: router.name }, warning.message);
    }
    for (const profile of next.profiles ?? []) {
      for (const warning of profileWarnings(profile, '')) deps.logger.warn({ profile: profile.name }, warning.message);
    }
    discovery.configure(next);
    loadRouters(next);
    config = next;
    self.shard(next.shard);
  };
  apply(initial);
  self.reloaded(true, now());
  // One log line per verdict change (peer stale since T, recovered, interface down, router down).
  verdictWatch = watchVerdicts({ store, config: () => polled, logger: deps.logger, now, elapsed, paused });

  /** Set by stop(): no reload applies after it. */
  let stopped = false;
  const attemptReload = async (): Promise<ReloadResult> => {
    const secretsBefore = secretsAdded();
    /** Applying has begun: a failure after that is a reload applied in part, not the previous config kept. */
    let applied = false;
    try {
      const next = deps.loadConfig === undefined ? config : await deps.loadConfig();
      // The event loop between loading and applying, each ~0.1–0.2 s for 2,000 routers (scrapes wait meanwhile).
      if (deps.loadConfig !== undefined) await nextTurn();
      // Stopped while the files were read (SIGTERM during a reload): applying now would plan routers, make clients
      // and install a web config after the stop closed them, and answer ok for a configuration that never runs.
      if (stopped) return STOPPED_RELOAD;
      const install = deps.prepareReload?.(next);
      const previous = config;
      // Before, not after: apply itself may fail once it has begun (discovery configured, routers not yet planned).
      applied = true;
      apply(next);
      install?.();
      const restart = applySettings(previous, next);
      keepSecretsInUse(next);
      self.reloaded(true, now());
      try {
        deps.logger.info(
          { routers: next.routers.length, source: next.source, ...(restart.length > 0 ? { restart_required: restart } : {}) },
          'configuration reloaded',
        );
      } catch {
        // A log line that fails is no failed reload: the new configuration runs (it was answered as refused, and the
        // gauge said 0, while the new routers ran; found by review).
      }
      return { ok: true };
    } catch (error) {
      // Stopped while the files were read, and the read then failed: the stop is the answer, not a failed reload.
      if (stopped) return STOPPED_RELOAD;
      try {
        return refuse(error, secretsBefore, applied);
      } catch {
        // Reporting the failure failed too (its log line, its planning): still a failed reload, and still an answer.
        // A rejection here ended the process under SIGHUP's `void reload()` (found by review).
        self.reloaded(false, now());
        return UNREPORTED_RELOAD;
      }
    }
  };
  /** A refused reload's report: the gauges, the redaction's secrets, one log line, and the answer with its problems. */
  const refuse = (error: unknown, secretsBefore: number, applied = false): ReloadResult => {
    self.reloaded(false, now());
    keepSecretsInUse(config);
    // A refused file's passwords stay known to the redaction (they may be the routers' new ones): a router's label
    // text may be redacted now, and /sd says so at once. Its jobs are planned again with the running config, so
    // the series follow: they kept the value in clear under their old text while /sd redacted it (found by review).
    if (secretsAdded() !== secretsBefore) loadRouters(config);
    const problems = error instanceof ConfigError ? error.problems : [{ path: '', message: applied ? `${PART_WAY}: ${messageOf(error)}` : messageOf(error) }];
    // Which file: the config, or a file it names (a web config, a password file); at start the same problem names it.
    const source = error instanceof ConfigError ? error.source : undefined;
    deps.logger.error(
      { ...(source === undefined ? {} : { source }), problems },
      applied ? `configuration reload failed part-way; ${PART_WAY}` : 'configuration reload failed; the previous configuration keeps running',
    );
    return source === undefined ? { ok: false, problems } : { ok: false, problems, source };
  };
  /** The attempt running, and the one to run after it for requests that came meanwhile. */
  let reloading: Promise<ReloadResult> | undefined;
  let queued: Promise<ReloadResult> | undefined;
  /** When the next reload may start (elapsed's ms): RELOAD_GAP_FACTOR × the last one's duration after it ended. */
  let nextReloadAt = Number.NEGATIVE_INFINITY;
  /** The queued reload's wait for its turn: a stop ends it, so the request is answered at once (found by review). */
  let gap: Wait | undefined;
  const startReload = (): Promise<ReloadResult> => {
    const started = elapsed();
    const attempt = attemptReload().finally(() => {
      const ended = elapsed();
      const took = ended - started;
      nextReloadAt = took < PACED_FROM_MS ? ended : ended + Math.min(MAX_RELOAD_GAP_MS, took * RELOAD_GAP_FACTOR);
    });
    // Stored before it is cleared: an attempt with nothing to wait for (no loadConfig: the demo) settles at once,
    // and a `finally` inside it cleared nothing, so every later reload got the first one's result.
    reloading = attempt;
    void attempt.finally(() => {
      if (reloading === attempt) reloading = undefined;
    });
    return attempt;
  };
  const reload = (): Promise<ReloadResult> => {
    if (stopped) return Promise.resolve(STOPPED_RELOAD);
    if (reloading === undefined && queued === undefined && elapsed() >= nextReloadAt) return startReload();
    // One asked for while another runs may come from a file edited after that one read it: it runs once more
    // after it (sharing it would drop the edit while answering ok), and not before the gap after the last one.
    // Every request meanwhile shares that one: clients posting reloads in a loop made one after another, 0.34 s of
    // CPU each at 2,000 routers, and scrapes 4 × slower (found by review).
    queued ??= (reloading ?? Promise.resolve())
      // The attempt ahead's outcome is its own callers': were it to reject, this one must still run.
      .catch(() => undefined)
      .then(() => {
        // Stopped while the reload ahead ran: no gap to wait out (a stop found none to end then, found by review).
        if (stopped) return undefined;
        gap = waitUntil(nextReloadAt, elapsed);
        return gap.done;
      })
      .then(() => {
        gap = undefined;
        queued = undefined;
        // Stopped meanwhile: applying would start what the stop closed (clients, discovery).
        return stopped ? STOPPED_RELOAD : startReload();
      });
    return queued;
  };

  const app: App = {
    store,
    exposition,
    self,
    discovery,
    config: () => config,
    handle: (req, res) => router(req, res),
    start: () => {
      scheduler.start(true);
      // Forgets targets Prometheus stopped probing; the clock is the app's, so tests sweep by hand instead.
      sweeping ??= setInterval(() => discovery.sweep(), DISCOVERY_SWEEP_MS).unref();
    },
    collectOnce: async (select) => {
      const results = await scheduler.runAllOnce(select);
      return results.every((result) => result === 'ok');
    },
    reload,
    // Frequent jobs only: a daily bandwidth test must not keep the exporter unready for a day.
    ready: () => scheduler.ready(),
    stop: async () => {
      stopped = true;
      // A reload waiting for its turn is answered now ('shutting down'): its request held the server's close.
      gap?.end();
      verdictWatch.stop();
      pauses?.stop();
      clearInterval(sweeping);
      discovery.close();
      await scheduler.stop();
      await clients.closeAll();
    },
  };
  // The server sees only what it serves (server/endpoints.ts), with the app's clock for /health.
  const router = createRouter(
    {
      exposition,
      store,
      routers: () => polled.routers,
      now,
      elapsed,
      paused,
      ready: app.ready,
      lifecycleEnabled: () => config.enableLifecycle === true,
      reload,
      routerNames: () => store.routerNames(),
      discover: (target, profile, timeoutMs, options) => discovery.discover(target, profile, timeoutMs, options),
      // Multi-target scraping (/probe, /sd): the same prepared chunks, one router at a time.
      renderRouter: (name, format, gzip, head) => routerExposition.renderRouter(name, format, gzip, head),
      renderSelf: (format, gzip, head) => routerExposition.renderSelf(format, gzip, head),
      sdGroups: () => sdGroupsOf(config.routers, config.shard),
    },
    deps.logger,
  );
  return app;
}

/**
 * After every reload attempt, the config in force (the new one applied, or the running one a failed or refused
 * reload left) has its passwords and its routers' Basic forms registered again as the redaction registry's kept
 * generation (util/redact.ts): what it no longer uses may go at the cap, nothing it uses. The one place this is
 * done: a kept client's Basic forms, registered only when it was built, were dropped first once the registry
 * passed its cap; a refused reload left the running values behind its own (both found by review). A fleet that
 * shares credentials registers each pair once.
 */
function keepSecretsInUse(inForce: Config): void {
  const done = beginSecretGeneration();
  registerSecretsIn(inForce);
  const pairs = new Set<string>();
  for (const settings of [...inForce.routers, ...(inForce.profiles ?? []).map((profile) => profile.settings)]) {
    const password = settings.password.reveal();
    const pair = `${settings.username}\u0000${password}`;
    if (pairs.has(pair)) continue;
    pairs.add(pair);
    registerCredentials(settings.username, password);
  }
  done();
}
