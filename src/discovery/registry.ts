/**
 * Routers from inventory: targets Prometheus names on `/probe?target=…&profile=…` become routers polled on the
 * profile's schedules like configured ones (docs/configuration.md, "profiles"). The registry decides, before any
 * connection, whether a target may be reached (allow list, cap), creates it once however many probes race for it,
 * and forgets it when it is no longer probed, when its profile goes, or when the config names it itself.
 * It owns no jobs: the app gives `routers()` to the scheduler beside the configured ones whenever `changed` fires.
 */
import type { Logger } from 'pino';
import type { Config, ProfileConfig, RouterConfig } from '../config/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import type { DiscoverOptions, DiscoverResult } from './discover-result.js';
import { jobsFor } from '../collectors/catalog.js';
import { jobFingerprint } from '../scheduler/definition.js';
import { AllowList } from './allow.js';
import { forgetAfterMsOf } from './expiry.js';
import { DEFAULT_PORT, parseTarget, targetEndpoint, targetName, urlEndpoint, type ParsedTarget, type Scheme } from './target.js';

/** Why a probe was refused; a closed set, so the refused counter's series stay few whatever targets arrive. */
export type RefuseReason = 'unknown_profile' | 'invalid_target' | 'outside_allow_list' | 'other_profile' | 'full' | 'cross_site';
/** Why a discovered target was forgotten; a closed set like RefuseReason (the expired counter's `reason`). */
export type ForgetReason = 'idle' | 'never_answered' | 'profile_removed' | 'outside_allow_list' | 'configured' | 'max_targets';

/**
 * A target that has never answered (no job of it ever succeeded) is forgotten this long after its last probe (or its
 * forget period, when shorter). Such a target is a typo, a router gone for good, or junk a client named (closed ports
 * of an allowed host), which held a profile's cap (429 for the real inventory), made /health critical and was
 * reconnected to every 2 minutes for the default forget period of 10 h (found by review). Keyed to answers, not to
 * probes: probing junk twice kept it, and a router that answers keeps its whole period however rarely it is
 * scraped (a first rule, "probed once", did neither; found by review).
 */
export const NEVER_ANSWERED_FORGET_MS = 10 * 60_000;
/** How often the app sweeps (app.ts DISCOVERY_SWEEP_MS), in seconds: what a Retry-After adds to a due time. */
export const SWEEP_SECONDS = 10;

export interface DiscoveryMetrics {
  /** Discovered targets per profile now (every configured profile, 0 included). */
  targets(counts: ReadonlyMap<string, number>): void;
  created(profile: string): void;
  forgotten(profile: string, reason: ForgetReason): void;
  /** `profile` is '' for an unknown profile: a label value never comes from the request. */
  refused(profile: string, reason: RefuseReason): void;
}

export interface RegistryDeps {
  /** A monotonic clock in ms (forget periods are durations: a stepped wall clock must not forget or keep targets). */
  now: () => number;
  /**
   * The ms the process did not run since an instant of `now` (util/pauses.ts): Prometheus could not probe a paused
   * exporter, so a pause is no time unprobed.
   */
  paused?: (since: number) => number;
  store: Pick<SnapshotStore, 'subscribe' | 'tried' | 'triedJobs' | 'snapshots' | 'recorded'>;
  /** The set of discovered routers changed (at most once per microtask): the app loads the scheduler again. */
  changed: () => void;
  metrics: DiscoveryMetrics;
  logger: Logger;
}

interface Profile {
  readonly config: ProfileConfig;
  readonly allow: AllowList;
  readonly forgetAfterMs: number;
}

interface Entry {
  /** The target's canonical name under its profile's scheme (targetName): the key, and the router's name. */
  readonly name: string;
  /** What it reaches (targetEndpoint): no two entries reach one router, whatever their profiles' schemes. */
  readonly endpoint: string;
  readonly target: ParsedTarget;
  readonly profile: string;
  readonly scheme: Scheme;
  router: RouterConfig;
  forgetAfterMs: number;
  lastProbeAt: number;
  /** Some job of it has succeeded since it was created (NEVER_ANSWERED_FORGET_MS). */
  answered: boolean;
  /** Every job has finished once (store.tried), or the entry was forgotten: waiters stop waiting. */
  settled: boolean;
  /**
   * When what the store still held under this name was collected under another profile (an entry forgotten, not yet
   * unloaded) whose jobs differ: each job this entry waits for, with the store's run count at creation for a job
   * that profile did not make alike (only runs recorded after it are this entry's), undefined for one it made alike
   * (its runner is kept, and its runs are this entry's own). Undefined when the store held nothing else.
   */
  readonly fresh: ReadonlyMap<string, number | undefined> | undefined;
  /**
   * Probes waiting for the first collection, each removed when its wait ends: a wait raced against one promise
   * that never settled (a profile with every collector off has no job to record) left a reaction on it per probe.
   */
  readonly waiters: Set<() => void>;
}

const REFUSALS: Record<Exclude<RefuseReason, 'unknown_profile' | 'full'>, string> = {
  invalid_target: 'target must be HOST or HOST:PORT (an IPv6 address in brackets), at most 262 characters',
  outside_allow_list: "target is outside the profile's targets",
  other_profile: 'target is already polled under another profile',
  cross_site: 'a page of another site may not add a target',
};

/** A load waits this many times the previous load's duration after it (see #changed). */
const LOAD_GAP_FACTOR = 4;
const MAX_LOAD_GAP_MS = 5_000;

export class DiscoveryRegistry {
  readonly #deps: RegistryDeps;
  #profiles = new Map<string, Profile>();
  /** Configured router names as given (any name), and as a target's canonical name under each scheme. */
  #configured: ReadonlySet<string> = new Set();
  #configuredNames: Record<Scheme, Map<string, string>> = { https: new Map(), http: new Map() };
  /** Configured routers by what their URL reaches (targetEndpoint's form). */
  #configuredEndpoints = new Map<string, string>();
  readonly #entries = new Map<string, Entry>();
  readonly #endpoints = new Map<string, Entry>();
  readonly #counts = new Map<string, number>();
  #pending = false;
  /** Closed at shutdown: no target is taken in after it (its scheduler and clients are being closed). */
  #closed = false;
  /** performance.now() before which the next scheduler load waits (see #changed). */
  #nextLoadAt = 0;
  #loadTimer: NodeJS.Timeout | undefined;
  #loaded: (() => void)[] = [];
  /** The router of each entry forgotten since the last scheduler load: the store may still hold its runs. */
  readonly #unloaded = new Map<string, RouterConfig>();
  readonly #unsubscribe: () => void;

  constructor(deps: RegistryDeps) {
    this.#deps = deps;
    // One map lookup per recorded run: cheap next to the run itself.
    this.#unsubscribe = deps.store.subscribe((router) => {
      const entry = this.#entries.get(router);
      if (entry === undefined) return;
      this.#settleIfTried(entry);
      entry.answered ||= deps.store.snapshots(router).some((run) => run.lastSuccessAt !== undefined);
    });
  }

  /**
   * Takes a (re)loaded config: targets of a profile that is gone, that the profile's allow list no longer holds
   * or that the config now names as a router are forgotten; the others take the profile's new settings. A
   * profile left with more targets than its (lowered) max_targets forgets the least recently probed ones. The
   * caller loads the scheduler right after (`changed` is not called).
   */
  configure(config: Config): void {
    this.#profiles = new Map(
      (config.profiles ?? []).map((profile) => [
        profile.name,
        { config: profile, allow: new AllowList(profile.targets, profile.ports, DEFAULT_PORT[profile.scheme]), forgetAfterMs: forgetAfterMsOf(profile) },
      ]),
    );
    this.#configured = new Set(config.routers.map((router) => router.name));
    this.#configuredNames = { https: new Map(), http: new Map() };
    this.#configuredEndpoints = new Map();
    for (const router of config.routers) {
      const parsed = parseTarget(router.name);
      if (parsed !== undefined) {
        for (const scheme of ['https', 'http'] as const) this.#configuredNames[scheme].set(targetName(parsed, scheme), router.name);
      }
      const endpoint = urlEndpoint(router.url);
      if (endpoint !== undefined && !this.#configuredEndpoints.has(endpoint)) this.#configuredEndpoints.set(endpoint, router.name);
    }
    for (const entry of [...this.#entries.values()]) {
      const profile = this.#profiles.get(entry.profile);
      // A new scheme gives the targets other names and endpoints (the default port moves): they start again under it.
      if (profile === undefined || profile.config.scheme !== entry.scheme) this.#forget(entry, 'profile_removed');
      else if (this.#configuredAs(entry.target, entry.scheme) !== undefined) this.#forget(entry, 'configured');
      else if (!profile.allow.allows(entry.target)) this.#forget(entry, 'outside_allow_list');
      else {
        entry.router = routerOf(profile.config, entry.name, entry.target);
        entry.forgetAfterMs = profile.forgetAfterMs;
      }
    }
    this.#counts.clear();
    for (const name of this.#profiles.keys()) this.#counts.set(name, 0);
    for (const entry of this.#entries.values()) this.#counts.set(entry.profile, (this.#counts.get(entry.profile) ?? 0) + 1);
    this.#trimToMaxTargets();
    this.#deps.metrics.targets(this.#counts);
    // The caller's load, right after, drops what the store held for every target forgotten so far.
    this.#unloaded.clear();
  }

  /**
   * The cap is checked when a target is created, so a reload that lowers it must apply it to the targets already
   * polled, or they would all stay (and keep logging in) until idle. The least recently probed go first: they are
   * the likeliest to have left the inventory; on a tie the oldest (the map keeps creation order, sort is stable).
   */
  #trimToMaxTargets(): void {
    for (const [name, profile] of this.#profiles) {
      const excess = (this.#counts.get(name) ?? 0) - profile.config.maxTargets;
      if (excess <= 0) continue;
      const entries = [...this.#entries.values()].filter((entry) => entry.profile === name).sort((a, b) => a.lastProbeAt - b.lastProbeAt);
      for (const entry of entries.slice(0, excess)) this.#forget(entry, 'max_targets');
    }
  }

  /** The discovered routers, for the scheduler beside the configured ones. */
  routers(): RouterConfig[] {
    return [...this.#entries.values()].map((entry) => entry.router);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** `/probe?target=…&profile=…`; see discover-result.ts for what each answer means. */
  async discover(target: string, profileName: string, timeoutMs: number, options: DiscoverOptions = {}): Promise<DiscoverResult> {
    const profile = this.#profiles.get(profileName);
    if (profile === undefined) {
      this.#deps.metrics.refused('', 'unknown_profile');
      return { kind: 'unknown_profile' };
    }
    // A configured router is served as itself: nothing new is reached, and its own settings stay in force.
    if (this.#configured.has(target)) return { kind: 'ready', router: target };
    const parsed = parseTarget(target);
    if (parsed === undefined) return this.#refuse(profileName, 'invalid_target');
    const { scheme } = profile.config;
    // Every spelling of a configured router's name or URL is that router too, not a second poller logging in to it.
    const configured = this.#configuredAs(parsed, scheme);
    if (configured !== undefined) return { kind: 'ready', router: configured };
    const name = targetName(parsed, scheme);
    const existing = this.#entries.get(name) ?? this.#endpoints.get(targetEndpoint(parsed, scheme));
    if (existing !== undefined) {
      if (existing.profile !== profileName) return this.#refuse(profileName, 'other_profile');
      existing.lastProbeAt = this.#deps.now();
      return this.#wait(existing, timeoutMs, target, options);
    }
    // Through an operator's browser a page anywhere would have the exporter log in to a target it names: what is polled
    // already is served to it (nothing new is reached), nothing is created for it (found by review).
    if (options.fromPage === true) return this.#refuse(profileName, 'cross_site');
    if (!profile.allow.allows(parsed)) return this.#refuse(profileName, 'outside_allow_list');
    const count = this.#counts.get(profileName) ?? 0;
    if (count >= profile.config.maxTargets) {
      this.#deps.metrics.refused(profileName, 'full');
      return {
        kind: 'full',
        reason: `profile ${profileName} already polls its max_targets (${profile.config.maxTargets}) discovered targets`,
        retryAfterSeconds: this.#nextForgetSeconds(profileName),
      };
    }
    // The server still answers while the exporter shuts down, from what was collected; a new target taken in now
    // would be planned on a stopped scheduler and wait out the whole probe for a collection that never comes.
    if (this.#closed) return { kind: 'closed' };
    const entry = this.#create(name, parsed, profile);
    return this.#wait(entry, timeoutMs, target, options);
  }

  /** Forgets every target not probed for its profile's forget period; returns how many. */
  sweep(): number {
    const now = this.#deps.now();
    let forgotten = 0;
    for (const entry of [...this.#entries.values()]) {
      // Unprobed only while the process ran: a pause past the forget period (a VM paused, SIGSTOP) forgot every
      // discovered target at the resume, as though the inventory had dropped them, their states and series with them.
      if (now - entry.lastProbeAt - (this.#deps.paused?.(entry.lastProbeAt) ?? 0) < forgetMsOf(entry)) continue;
      this.#forget(entry, entry.answered ? 'idle' : 'never_answered');
      forgotten += 1;
    }
    if (forgotten > 0) {
      this.#deps.metrics.targets(this.#counts);
      this.#changed();
    }
    return forgotten;
  }

  /** Resolves once no scheduler load is pending (tests; a load follows every creation and forgetting). */
  flushed(): Promise<void> {
    return this.#pending ? new Promise((resolve) => this.#loaded.push(resolve)) : Promise.resolve();
  }

  /** Stops listening to the store and releases every waiter (shutdown). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#loadTimer);
    this.#pending = false;
    for (const resolve of this.#loaded.splice(0)) resolve();
    this.#unsubscribe();
    for (const entry of this.#entries.values()) settle(entry);
  }

  /** Seconds until the profile's next target is due to be forgotten (a full profile's Retry-After); at least 1. */
  #nextForgetSeconds(profile: string): number {
    const now = this.#deps.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (const entry of this.#entries.values()) {
      if (entry.profile === profile) soonest = Math.min(soonest, entry.lastProbeAt + forgetMsOf(entry) - now);
    }
    // The sweep runs every DISCOVERY_SWEEP_MS (app.ts): a target goes up to that much after it is due.
    return Number.isFinite(soonest) ? Math.max(0, Math.ceil(soonest / 1000)) + SWEEP_SECONDS : SWEEP_SECONDS;
  }

  /** The configured router a target is, by its name or by what its URL reaches, if any. */
  #configuredAs(target: ParsedTarget, scheme: Scheme): string | undefined {
    return this.#configuredNames[scheme].get(targetName(target, scheme)) ?? this.#configuredEndpoints.get(targetEndpoint(target, scheme));
  }

  #refuse(profile: string, reason: keyof typeof REFUSALS): DiscoverResult {
    this.#deps.metrics.refused(profile, reason);
    return { kind: 'refused', reason: REFUSALS[reason] };
  }

  #create(name: string, target: ParsedTarget, profile: Profile): Entry {
    // Forgotten under another profile and probed under this one before the load that drops the old runs: those
    // runs are another profile's (its labels, its credentials), not this target's first collection, unless the
    // two profiles make the same jobs. Then the load keeps the runners and their runs (the scheduler's own test),
    // and waiting for runs of their own would wait out their schedules: an hour for firmware.
    const router = routerOf(profile.config, name, target);
    const before = this.#unloaded.get(name);
    const fresh = before === undefined ? undefined : freshJobs(before, router, this.#deps.store.recorded);
    const entry: Entry = {
      name,
      endpoint: targetEndpoint(target, profile.config.scheme),
      target,
      profile: profile.config.name,
      scheme: profile.config.scheme,
      router,
      forgetAfterMs: profile.forgetAfterMs,
      lastProbeAt: this.#deps.now(),
      answered: false,
      settled: false,
      fresh,
      waiters: new Set(),
    };
    this.#entries.set(name, entry);
    this.#endpoints.set(entry.endpoint, entry);
    this.#counts.set(entry.profile, (this.#counts.get(entry.profile) ?? 0) + 1);
    this.#deps.metrics.created(entry.profile);
    this.#deps.metrics.targets(this.#counts);
    this.#deps.logger.info({ router: name, profile: entry.profile }, 'discovered target: polling it under its profile');
    this.#changed();
    return entry;
  }

  #forget(entry: Entry, reason: ForgetReason): void {
    this.#entries.delete(entry.name);
    this.#endpoints.delete(entry.endpoint);
    this.#counts.set(entry.profile, Math.max(0, (this.#counts.get(entry.profile) ?? 1) - 1));
    if (!this.#profiles.has(entry.profile)) this.#counts.delete(entry.profile);
    this.#deps.metrics.forgotten(entry.profile, reason);
    this.#deps.logger.info({ router: entry.name, profile: entry.profile, reason }, 'discovered target forgotten');
    this.#unloaded.set(entry.name, entry.router);
    settle(entry);
  }

  /** Settles an entry whose every job has finished once: the one test of "collected" for all three callers. */
  #settleIfTried(entry: Entry): void {
    if (entry.settled || !this.#deps.store.tried(entry.name)) return;
    // Fresh: every job has run since the definition changed, but those that wait for their schedule (a daily
    // bandwidth test's old snapshot kept probes waiting until it ran again, found by review).
    if (entry.fresh !== undefined && !this.#deps.store.triedJobs(entry.name, entry.fresh)) return;
    settle(entry);
  }

  /**
   * Waits for the entry's first collection, at most `timeoutMs`, and no longer than the client that asked is there
   * (`gone`): a probe whose client left held its wait, one of a client's few, for the rest of the scrape's timeout,
   * and a client that opened and dropped first probes kept every wait taken (found by review).
   */
  async #wait(entry: Entry, timeoutMs: number, target: string, options: DiscoverOptions): Promise<DiscoverResult> {
    const { gone } = options;
    // Already collected under this name (a target probed again under its profile right after it was forgotten,
    // before the load that would drop it; a profile with no job at all once loaded): nothing to wait for.
    this.#settleIfTried(entry);
    if (!entry.settled && timeoutMs > 0 && gone?.aborted !== true) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          entry.waiters.delete(done);
          gone?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        entry.waiters.add(done);
        gone?.addEventListener('abort', done, { once: true });
      });
    }
    if (this.#entries.get(entry.name) === entry) return entry.settled ? { kind: 'ready', router: entry.name } : { kind: 'timeout', router: entry.name };
    // Forgotten while waiting (a reload took its profile away, narrowed its allow list, lowered its max_targets or
    // named it as a router): answered as a probe of it now would be, without waiting again. Served as a timeout, the
    // wait said "accepted, retry shortly" (503) of a target the next probe is refused (found by review).
    return this.discover(target, entry.profile, 0, { fromPage: options.fromPage === true });
  }

  /**
   * Loads the scheduler again, paced: a load walks every router (configured and discovered), building only the new
   * and changed ones (scheduler.ts), ~0.1–0.2 s at 10,000. The first change loads at once (a lone new target starts at once); the
   * next waits LOAD_GAP_FACTOR × the last load's duration, and every change in between joins it, so reconciling
   * a burst of first probes takes at most about 1 / (1 + LOAD_GAP_FACTOR) of the CPU, however many arrive.
   */
  #changed(): void {
    if (this.#pending || this.#closed) return;
    this.#pending = true;
    const run = (): void => {
      this.#loadTimer = undefined;
      if (!this.#pending) return;
      this.#pending = false;
      const started = performance.now();
      // The load drops what the store held for the targets forgotten so far (or keeps it for one made again).
      this.#unloaded.clear();
      try {
        this.#deps.changed();
      } catch (error) {
        // Run from a timer or a microtask, a throw here would end the process: one bounded line instead, and the
        // waiting probes are answered (with what the scheduler has).
        this.#deps.logger.error({ err: error }, 'loading the scheduler with the discovered targets failed');
      }
      const took = performance.now() - started;
      this.#nextLoadAt = performance.now() + Math.min(MAX_LOAD_GAP_MS, took * LOAD_GAP_FACTOR);
      // A target whose profile has no job is tried as soon as it is loaded, and no record will ever say so.
      for (const entry of this.#entries.values()) this.#settleIfTried(entry);
      for (const resolve of this.#loaded.splice(0)) resolve();
    };
    const wait = this.#nextLoadAt - performance.now();
    if (wait <= 0) queueMicrotask(run);
    else this.#loadTimer = setTimeout(run, wait);
  }
}

/** Marks an entry settled and ends every probe's wait on it. */
function settle(entry: Entry): void {
  entry.settled = true;
  for (const done of [...entry.waiters]) done();
}

/**
 * The jobs a target made again under `after` waits for, when `before` (the profile it was forgotten under) made
 * other jobs: each with `recorded` when `before` made no job alike, undefined when it did (the scheduler keeps
 * runners by their fingerprint, scheduler/definition.ts). Waiting for runs of their own after `recorded` would wait
 * out their schedules, an hour for firmware, when the two profiles share some jobs but not all (found by review).
 * Jobs that wait for their schedule (a daily bandwidth test) are not waited for. Undefined when every job is alike.
 */
function freshJobs(before: RouterConfig, after: RouterConfig, recorded: number): ReadonlyMap<string, number | undefined> | undefined {
  const kept = new Set(jobsFor(before).map((definition) => jobFingerprint(before, definition, true)));
  const jobs = new Map<string, number | undefined>();
  let changed = false;
  for (const definition of jobsFor(after)) {
    const alike = kept.has(jobFingerprint(after, definition, true));
    if (!alike) changed = true;
    if (definition.waitsForSchedule !== true) jobs.set(definition.job, alike ? undefined : recorded);
  }
  return changed ? jobs : undefined;
}

/** The router a target becomes: the profile's settings, the target's canonical name, its URL from scheme and canonical target. */
function routerOf(profile: ProfileConfig, name: string, target: ParsedTarget): RouterConfig {
  return { ...profile.settings, name, url: `${profile.scheme}://${target.authority}` };
}

/** How long a target may go unprobed before it is forgotten: its forget period, or less when it never answered. */
function forgetMsOf(entry: Pick<Entry, 'forgetAfterMs' | 'answered'>): number {
  return entry.answered ? entry.forgetAfterMs : Math.min(entry.forgetAfterMs, NEVER_ANSWERED_FORGET_MS);
}
