/**
 * The snapshot store: the only state shared between collection and scrapes.
 * Each finished job replaces its router×job snapshot whole (no stale series), and refreshes the router's
 * collector meta series. Scrapes read prepared chunks; they never wait on a router.
 */
import type { CollectorName } from '../config/types.js';
import { ERROR_REASONS, type ErrorReason, type RouterOsErrorCode } from '../routeros/errors.js';
import { F, FAMILIES } from './families.js';
import type { Chunk } from './gzip.js';
import { SampleSet } from './samples.js';
import { routerLabel, seriesLabels, type RouterLabel } from './family.js';
import { routerUp, runStateOf, saysSilent } from '../analysis/up.js';

export interface JobOutcome<Data = unknown> {
  router: string;
  collector: CollectorName;
  /** Unique within the router: `system`, `wireguard`, `ping:["<name>","<target>"]`, … (compositeJobKey) */
  job: string;
  ok: boolean;
  reason?: ErrorReason;
  /** A failed run's operator phrase ("refused: the user's group lacks the api policy"); holds no router text. */
  summary?: string;
  /** A failed run's error code, when it was the transport's (routeros_up tells a silent router by it). */
  code?: RouterOsErrorCode | undefined;
  /** `recorded` when the run started (its trigger, before it waited for its turn): what it may be ordered after. */
  startedAfter?: number | undefined;
  /** Unix ms the run finished. */
  finishedAt: number;
  /**
   * The monotonic clock (ms) when the run finished, beside finishedAt: how far the wall clock ran since, not how
   * far it was stepped (health/evaluate.ts ages peers by it).
   */
  finishedElapsed?: number | undefined;
  durationSeconds: number;
  /** Data series of a successful run. */
  samples?: SampleSet;
  /** The decoded data, for health verdicts. */
  data?: Data;
  /** Values of a successful run that did not decode or were out of range (their samples were left out). */
  decodeErrors?: number;
}

export interface JobSnapshot {
  readonly collector: CollectorName;
  readonly job: string;
  readonly ok: boolean;
  readonly reason: ErrorReason | undefined;
  readonly summary?: string | undefined;
  readonly finishedAt: number;
  /** JobOutcome.finishedElapsed. */
  readonly finishedElapsed?: number | undefined;
  readonly durationSeconds: number;
  readonly lastSuccessAt: number | undefined;
  /** The run's place among the runs the store recorded, in the order they finished (not a clock: never steps back). */
  readonly seq?: number | undefined;
  /**
   * For a run that failed in a way that says the router does not answer (analysis/up.ts saysSilent): where the
   * first of the job's unbroken streak of such failures started, as `recorded` then (so a run recorded after that
   * start, such as another job's success of the same tick, is after it); undefined for any other run.
   */
  readonly silentSince?: number | undefined;
  readonly chunks: readonly (Chunk | undefined)[];
  readonly data: unknown;
}

interface JobSlot {
  collector: CollectorName;
  snapshot: JobSnapshot | undefined;
  backoffSeconds: number;
  waitsForSchedule: boolean;
}

interface RouterEntry {
  readonly name: string;
  readonly label: RouterLabel;
  jobs: Map<string, JobSlot>;
  errors: Map<CollectorName, Map<ErrorReason, number>>;
  decodeErrors: Map<CollectorName, number>;
  meta: readonly (Chunk | undefined)[];
  /** Whether `meta` is behind the router's state: rendered when next read (metaOf), not at every change. */
  metaStale: boolean;
}

export interface JobPlan {
  collector: CollectorName;
  job: string;
  /** Runs only at its scheduled times (a bandwidth test): not counted by tried(). */
  waitsForSchedule?: boolean;
}

/** Told the router and collector after each recorded run (health verdict-change logging listens here). */
export type RecordListener = (router: string, collector: CollectorName) => void;

function runStatesOf(entry: RouterEntry): ReturnType<typeof runStateOf>[] {
  return [...entry.jobs.values()].map((slot) => runStateOf(slot.collector, slot.snapshot));
}

/** A job's slot whose last run failed, taken over by the router under new labels (plan); none otherwise. */
function failedSlot(slot: JobSlot | undefined): JobSlot | undefined {
  return slot?.snapshot?.ok === false ? { ...slot } : undefined;
}

export class SnapshotStore {
  #routers = new Map<string, RouterEntry>();
  /** How many chunks of each family the last chunksByFamily found: the next one's lists are made that long. */
  #familySizes: readonly number[] = [];
  /** Runs recorded so far: each run's `seq`. */
  #recorded = 0;

  /** How many runs the store has recorded: a run's `seq` is this count once it is recorded. */
  get recorded(): number {
    return this.#recorded;
  }
  #listeners = new Set<RecordListener>();
  #version = 0;

  /** Changes whenever any chunk may have (a plan, a recorded run, a backoff): what a prepared layout is valid for. */
  get version(): number {
    return this.#version;
  }

  /** Calls `listener` after every recorded run; returns the function that unsubscribes it. */
  subscribe(listener: RecordListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Declares the routers and their jobs (at start and on reload), with each router's label text
   * (routerLabel: `router` and its configured labels; `router` alone when not given). Routers and jobs no
   * longer planned lose their series now; kept ones keep their snapshots, so a reload does not blank the
   * metrics. A router whose labels changed starts afresh: its series are other series now, and keeping old
   * snapshots would serve data series under the old labels beside meta series under the new ones; but a router that
   * was down keeps its jobs' failed runs (such a run has no data series): the device is the one it was, failing, and
   * until its jobs run again, which a backoff may hold off for minutes, it shows routeros_up 0 under its new labels
   * rather than nothing, in which alerts on it resolved. Only a router that was down: the failures of one that was
   * up, carried without its successes, read it down (found by review). So does a router in `restarted` (a reload
   * pointed it at another URL, maybe another device), but without exception: until its jobs run again, which they
   * do at once, it has no series rather than the old endpoint's as its own.
   */
  plan(
    routers: ReadonlyMap<string, readonly JobPlan[]>,
    labels: ReadonlyMap<string, RouterLabel> = new Map(),
    restarted: ReadonlySet<string> = new Set(),
  ): void {
    const next = new Map<string, RouterEntry>();
    for (const [name, jobs] of routers) {
      const label = labels.get(name) ?? routerLabel(name);
      const kept = this.#routers.get(name);
      const entry = (kept?.label === label && !restarted.has(name) ? kept : undefined) ?? {
        name,
        label,
        jobs: new Map<string, JobSlot>(),
        errors: new Map<CollectorName, Map<ErrorReason, number>>(),
        decodeErrors: new Map<CollectorName, number>(),
        meta: [],
        metaStale: true,
      };
      const slots = new Map<string, JobSlot>();
      const relabelled = kept !== undefined && kept !== entry && !restarted.has(name) && routerUp(runStatesOf(kept)) === false ? kept : undefined;
      for (const plan of jobs) {
        const { collector, job } = plan;
        const old = entry.jobs.get(job) ?? failedSlot(relabelled?.jobs.get(job));
        const waitsForSchedule = plan.waitsForSchedule === true;
        if (old !== undefined && old.collector === collector) {
          old.waitsForSchedule = waitsForSchedule;
          slots.set(job, old);
        } else slots.set(job, { collector, snapshot: undefined, backoffSeconds: 0, waitsForSchedule });
        if (!entry.errors.has(collector)) entry.errors.set(collector, new Map());
        if (!entry.decodeErrors.has(collector)) entry.decodeErrors.set(collector, 0);
      }
      for (const collector of [...entry.errors.keys()]) {
        if (![...slots.values()].some((slot) => slot.collector === collector)) {
          entry.errors.delete(collector);
          entry.decodeErrors.delete(collector);
        }
      }
      entry.jobs = slots;
      this.#metaChanged(entry);
      next.set(name, entry);
    }
    this.#routers = next;
    this.#version++;
  }

  /** Stores a finished run. Outcomes of jobs that are no longer planned (a reload raced the run) are dropped. */
  record(outcome: JobOutcome): void {
    const entry = this.#routers.get(outcome.router);
    const slot = entry?.jobs.get(outcome.job);
    if (entry === undefined || slot === undefined || slot.collector !== outcome.collector) return;
    const previous = slot.snapshot;
    const seq = ++this.#recorded;
    slot.snapshot = {
      collector: outcome.collector,
      job: outcome.job,
      ok: outcome.ok,
      reason: outcome.ok ? undefined : outcome.reason ?? 'parse',
      summary: outcome.ok ? undefined : outcome.summary,
      finishedAt: outcome.finishedAt,
      finishedElapsed: outcome.finishedElapsed,
      durationSeconds: outcome.durationSeconds,
      lastSuccessAt: outcome.ok ? outcome.finishedAt : previous?.lastSuccessAt,
      seq,
      silentSince: outcome.ok || !saysSilent(outcome.code, outcome.reason ?? 'parse') ? undefined : previous?.silentSince ?? outcome.startedAfter ?? seq - 1,
      // A failed run drops its data series rather than freezing them. Families whose bytes did not change
      // are not deflated again.
      chunks: outcome.ok && outcome.samples !== undefined ? outcome.samples.toChunks(previous?.chunks) : [],
      data: outcome.ok ? outcome.data : undefined,
    };
    const decodeErrors = outcome.ok ? outcome.decodeErrors ?? 0 : 0;
    if (decodeErrors > 0) entry.decodeErrors.set(outcome.collector, (entry.decodeErrors.get(outcome.collector) ?? 0) + decodeErrors);
    if (!outcome.ok) {
      const counts = entry.errors.get(outcome.collector);
      const reason = outcome.reason ?? 'parse';
      if (counts !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
    this.#metaChanged(entry);
    for (const listener of this.#listeners) {
      // A listener's bug must never cost a collection its snapshot, which is already stored.
      try {
        listener(outcome.router, outcome.collector);
      } catch {
        /* ignored on purpose */
      }
    }
  }

  /** The chunks of a job's last run, which its next run's families are compared with (SampleSet.toChunks). */
  chunksOf(router: string, job: string): readonly (Chunk | undefined)[] | undefined {
    return this.#routers.get(router)?.jobs.get(job)?.snapshot?.chunks;
  }

  /** Exposes the scheduler's backoff for a job (seconds until its next attempt; 0 when none). */
  setBackoff(router: string, job: string, seconds: number): void {
    const entry = this.#routers.get(router);
    const slot = entry?.jobs.get(job);
    if (entry === undefined || slot === undefined || slot.backoffSeconds === seconds) return;
    slot.backoffSeconds = seconds;
    this.#metaChanged(entry);
  }

  routerNames(): string[] {
    return [...this.#routers.keys()];
  }

  /** Latest snapshots of a router's jobs (undefined entries: planned but not run yet). */
  snapshots(router: string): JobSnapshot[] {
    const entry = this.#routers.get(router);
    if (entry === undefined) return [];
    const out: JobSnapshot[] = [];
    for (const slot of entry.jobs.values()) if (slot.snapshot !== undefined) out.push(slot.snapshot);
    return out;
  }

  /** True when every planned job of the router has finished at least once (false for an unknown router). */
  tried(router: string): boolean {
    const entry = this.#routers.get(router);
    if (entry === undefined) return false;
    // A job that waits for its schedule (a bandwidth test, daily) is not waited for: a discovered target whose
    // profile had one answered every probe after the scrape's timeout until 03:00 (found by review).
    for (const slot of entry.jobs.values()) {
      if (slot.waitsForSchedule) continue;
      if (slot.snapshot === undefined) return false;
    }
    return true;
  }

  /**
   * True when each of `jobs` is planned for the router and has finished: since that run's sequence number where one
   * is given, at least once where undefined (a discovered target made again under another profile, whose jobs
   * alike keep their runs: discovery/registry.ts).
   */
  triedJobs(router: string, jobs: ReadonlyMap<string, number | undefined>): boolean {
    const entry = this.#routers.get(router);
    if (entry === undefined) return false;
    for (const [job, after] of jobs) {
      const snapshot = entry.jobs.get(job)?.snapshot;
      if (snapshot === undefined || (after !== undefined && (snapshot.seq ?? 0) <= after)) return false;
    }
    return true;
  }

  /** True when every planned job of every router has finished at least once. */
  allTried(): boolean {
    for (const name of this.#routers.keys()) if (!this.tried(name)) return false;
    return true;
  }

  /**
   * Every chunk by family index, router by router (meta first, then each job), in one walk of the store: what a
   * scrape lays out. At 2,000 routers a generator walk per family was ~500,000 steps per scrape.
   */
  chunksByFamily(): Chunk[][] {
    // Each family's list sized as the last walk found it: grown by pushing, the lists' outgrown copies were most
    // of what a walk allocated (~2 MB of ~3 at 2,000 routers, and a cycle's merges and layouts walk ~6 times).
    const sizes = this.#familySizes;
    const out = new Array<Chunk[]>(FAMILY_COUNT);
    for (let index = 0; index < FAMILY_COUNT; index++) out[index] = new Array<Chunk>(Math.min(sizes[index] ?? 0, PRESIZED_AT_MOST));
    const filled = new Array<number>(FAMILY_COUNT).fill(0);
    const collect = (chunks: readonly (Chunk | undefined)[]): void => {
      const end = Math.min(chunks.length, FAMILY_COUNT);
      for (let index = 0; index < end; index++) {
        const chunk = chunks[index];
        if (chunk === undefined) continue;
        const at = filled[index] as number;
        (out[index] as Chunk[])[at] = chunk;
        filled[index] = at + 1;
      }
    };
    for (const entry of this.#routers.values()) {
      collect(this.#metaOf(entry));
      for (const slot of entry.jobs.values()) if (slot.snapshot !== undefined) collect(slot.snapshot.chunks);
    }
    for (let index = 0; index < FAMILY_COUNT; index++) {
      // Fewer than last time (routers gone, families not written): no holes left at the end.
      (out[index] as Chunk[]).length = filled[index] as number;
    }
    this.#familySizes = filled;
    return out;
  }

  /**
   * One router's chunks of a family, meta first, then each job (GET /probe); undefined for a router that is not
   * planned, so one lookup answers both "which chunks" and "is there such a router".
   */
  routerChunksOf(router: string, familyIndex: number): Chunk[] | undefined {
    const entry = this.#routers.get(router);
    if (entry === undefined) return undefined;
    const chunks: Chunk[] = [];
    const meta = this.#metaOf(entry)[familyIndex];
    if (meta !== undefined) chunks.push(meta);
    for (const slot of entry.jobs.values()) {
      const chunk = slot.snapshot?.chunks[familyIndex];
      if (chunk !== undefined) chunks.push(chunk);
    }
    return chunks;
  }

  /**
   * The router's collector meta series changed (a run, a backoff, a plan): rendered when next read, so that the
   * runs of one cycle (a router's jobs land milliseconds apart) render them once, not once per run, which was
   * ~10 % of the bytes allocated per cycle at 2,000 routers.
   */
  #metaChanged(entry: RouterEntry): void {
    this.#version++;
    entry.metaStale = true;
  }

  #metaOf(entry: RouterEntry): readonly (Chunk | undefined)[] {
    if (entry.metaStale) {
      entry.meta = this.#renderMeta(entry);
      entry.metaStale = false;
    }
    return entry.meta;
  }

  #renderMeta(entry: RouterEntry): (Chunk | undefined)[] {
    const samples = new SampleSet();
    const byCollector = new Map<CollectorName, JobSlot[]>();
    for (const slot of entry.jobs.values()) {
      const list = byCollector.get(slot.collector);
      if (list === undefined) byCollector.set(slot.collector, [slot]);
      else list.push(slot);
    }
    const up = routerUp(runStatesOf(entry));
    if (up !== undefined) samples.add(F.up, entry.label, up ? 1 : 0);
    for (const [collector, slots] of byCollector) {
      const labels = seriesLabels(F.collectorSuccess, entry.label, [collector]);
      const runs = slots.map((slot) => slot.snapshot).filter((s): s is JobSnapshot => s !== undefined);
      if (runs.length > 0) {
        // The jobs that have run: a target not run yet (a ping or bandwidth test added by a reload, or still waiting
        // at start) is no failure, and read as 0 it made a collector that had failed nothing look failing for as
        // long as a bandwidth test takes to come round (found by review).
        samples.add(F.collectorSuccess, labels, runs.every((run) => run.ok) ? 1 : 0);
        samples.add(F.collectorDuration, labels, Math.max(...runs.map((run) => run.durationSeconds)));
        const successes = runs.map((run) => run.lastSuccessAt);
        if (successes.every((at): at is number => at !== undefined)) {
          samples.add(F.collectorLastSuccess, labels, Math.min(...successes) / 1000);
        }
      }
      // Only reasons that occurred: nine zeros per collector and router were a tenth of the series at fleet shape
      // (issue 14). Alerts key on routeros_collector_success; the reason is for the description and graphs.
      const errors = entry.errors.get(collector);
      if (errors !== undefined && errors.size > 0) {
        for (const reason of ERROR_REASONS) {
          const count = errors.get(reason);
          if (count !== undefined) samples.addExtended(F.collectorErrors, labels, [reason], count);
        }
      }
      samples.add(F.collectorDecodeErrors, labels, entry.decodeErrors.get(collector) ?? 0);
      samples.add(F.collectorBackoff, labels, Math.max(...slots.map((slot) => slot.backoffSeconds)));
    }
    return samples.toChunks(entry.meta);
  }
}

export const FAMILY_COUNT = FAMILIES.length;

/** A list made longer than this is made empty and grown instead: V8 makes `new Array(n)` past ~100,000 a dictionary. */
const PRESIZED_AT_MOST = 65_536;
