/**
 * The collector seam: a collector names its jobs for a router; a job asks the router through the
 * client and maps the replies to samples with pure functions (tested with recorded replies, no socket).
 */
import type { RouterConfig } from '../config/types.js';
import type { CollectorDescriptor, CollectorName } from './descriptors.js';
import type { RouterOsClient } from '../routeros/client.js';
import type { SampleSet } from '../metrics/samples.js';
import type { RouterLabel } from '../metrics/family.js';

export interface JobContext {
  readonly router: RouterConfig;
  readonly client: Pick<RouterOsClient, 'list' | 'getSingleton' | 'run'>;
  /** `router="<name>"`, escaped once (metrics/family.ts routerLabel). */
  readonly routerLabel: RouterLabel;
  /** Unix ms, injectable for tests. */
  readonly now: () => number;
  /**
   * A monotonic clock in ms (performance.now() when absent): durations between runs, which a wall clock stepped
   * between them would stretch or cut (the wireguard counter window).
   */
  readonly elapsed?: () => number;
  /** Aborted on shutdown or when the job is removed by a reload. */
  readonly signal: AbortSignal;
  /** State the job keeps across runs (and reloads), e.g. counters summed over runs. */
  readonly memory: Map<string, number>;
  /**
   * The shortest counter window a run tells traffic movement from (wireguard-counters.ts); undefined: the daemon's,
   * MIN_COUNTER_WINDOW_SECONDS. `check` gives 0: its looks are short on purpose.
   */
  readonly minCounterWindowSeconds?: number | undefined;
}

export interface JobResult<Data = unknown> {
  samples: SampleSet;
  data: Data;
  /** Values that did not decode; their samples were left out, the rest of the run stands. The first few, worded. */
  problems: string[];
  /** How many values did not decode or were out of range (routeros_collector_decode_errors_total). */
  decodeErrors: number;
  /**
   * The reads that only add to the run (optional-read.ts) that this run made, each answered or failed: a failed one
   * left its part out and the run stands without it. The job logs when a part is left out or its cause changes, and
   * when it answers again. A read the run did not make (nothing to ask it for) is not listed: it says nothing of
   * whether that part would answer. Absent: the run made none.
   */
  optionalReads?: readonly OptionalRead[];
}

/** One read that only adds to a run: what part of the run it is, and, when it failed, why. */
export interface OptionalRead {
  readonly what: string;
  /** Absent: the read answered. */
  readonly failure?: OptionalReadFailure;
}

export interface OptionalReadFailure {
  /** The cause, stable from run to run (an error code): a change of cause is worth a line, a new message is not. */
  readonly cause: string;
  /** Bounded and safe to log. */
  readonly message: string;
}

export interface JobDefinition<Data = unknown> {
  readonly collector: CollectorName;
  /** Unique within a router. */
  readonly job: string;
  readonly schedule: string;
  /**
   * The run deadline: the scheduler aborts a run still going after this long (through `context.signal`) and
   * records it failed with reason `timeout`. Covers every request of the run, each bounded by its own timeout.
   */
  readonly deadlineSeconds: number;
  /**
   * The router connection the run waits on. `reads`: its requests are reads (GET) on the router's one read
   * connection, so the scheduler runs a router's `reads` jobs one after the other, each deadline counted from
   * its turn; jobs that fired together once queued their reads there and ran out of time waiting behind each
   * other's. `commands`: long console commands (ping, bandwidth test) on their own connections, run alongside.
   * Required, so a new collector states it.
   */
  readonly connection: 'reads' | 'commands';
  /**
   * How long a healthy run lasts by design, apart from waiting for the router's answers: a ping's count ×
   * interval, a bandwidth test's duration; absent for reads, which take as long as the router's answer. Such runs
   * take their permits from the timed runs' cap, not the quick runs' (runner.ts #capForRun).
   */
  readonly runsForSeconds?: number;
  /**
   * Runs only at its scheduled times: not at start, nor at once when a reload adds or changes it. A bandwidth test
   * loads the link it measures; every restart (a rollout, a crash loop) tested every router's link at once, and a
   * fleet of daily tests kept the exporter unready for minutes (found by review). Such a job does not gate
   * readiness either.
   */
  readonly waitsForSchedule?: boolean;
  /**
   * What the run reads from the config besides the schedule and the connection (a ping target, the interface
   * filter, the verdict settings), as plain JSON-able data; `null` for none. A reload that changes it replaces
   * the job; one that does not keeps it running (scheduler/definition.ts). Required, so a new collector states it.
   */
  readonly settings: unknown;
  run(context: JobContext): Promise<JobResult<Data>>;
}

/** The runtime half of a catalog entry (the static half is its descriptor, descriptors.ts). */
export interface Collector<Data = unknown, Name extends CollectorName = CollectorName> extends CollectorDescriptor {
  readonly name: Name;
  /** The jobs this collector runs for a router (none when, e.g., no ping targets are configured). */
  jobs(router: RouterConfig): JobDefinition<Data>[];
}

/**
 * The key of one of a collector's several jobs, from the user's values that tell them apart (a ping's name and
 * target). Encoded as JSON, so distinct values always give distinct keys: `ping:${name}:${target}` made
 * name "a:1" + target "2::3" and name "a" + target "1:2::3" one key, and the scheduler kept only one of them.
 */
export function compositeJobKey(collector: string, ...parts: string[]): string {
  return `${collector}:${JSON.stringify(parts)}`;
}
