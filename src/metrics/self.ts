/**
 * The exporter's own metrics (build info, config reloads, process and Node.js runtime), kept in prom-client
 * registries: they are few, and prom-client's default collectors are the convention users know.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { ExpositionFormat } from './negotiate.js';
import { openMetricsMetadata } from './metadata.js';
import { fdCounter, registerOpenFds } from './open-fds.js';
import { readsResent } from '../routeros/client.js';
import { SELF_METRICS } from './doc.js';

/**
 * Defaults left out. prom-client names the `*_total` ones gauges, which promtool (rightly) rejects for non-counters.
 * The six `nodejs_active_*` list every handle, request or resource of the process at each scrape and count them by
 * type: at fleet shape (2,000 router connections) that was ~1 ms of every scrape's event loop, growing with the
 * fleet, for a breakdown no alert or dashboard uses. `process_open_fds` lists every descriptor: it is served by
 * open-fds.ts instead, still counting the connections.
 */
const LEFT_OUT_DEFAULTS = [
  'process_open_fds',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
];

/**
 * A counter as an OpenMetrics registry may hold it. Rendering OpenMetrics, prom-client renames every counter it
 * holds to the family name (drops `_total` from the metric object itself, for good), so the counter shared with the
 * text registry would lose its suffix there. The view has the family name already and reads the counter's values.
 */
function openMetricsCounter(name: string, counter: Metric): Metric {
  const family = name.replace(/_total$/, '');
  const view = {
    name: family,
    type: 'counter',
    async get(): Promise<Awaited<ReturnType<Metric['get']>>> {
      return { ...(await counter.get()), name: family };
    },
  };
  return view as unknown as Metric;
}

/** Runs holding a permit and runs waiting for one, per cap of the scheduler (src/scheduler/scheduler.ts). */
export type RunCaps = Record<'quick' | 'waiting' | 'timed', { inFlight: number; queued: number }>;

/** The HELP of a self-metric, as docs/metrics.md lists it (doc.ts). */
function helpOf(name: (typeof SELF_METRICS)[number]['name']): string {
  return SELF_METRICS.find((metric) => metric.name === name)?.help ?? '';
}

export interface BuildInfo {
  version: string;
}

export class SelfMetrics {
  readonly #registries: Record<ExpositionFormat, { metrics(): Promise<string> }>;
  readonly #reloadOk: Gauge;
  readonly #reloadAt: Gauge;
  readonly #restartRequired: Gauge;
  readonly #shard: { index: Gauge; count: Gauge };
  /** The scheduler's caps as of a scrape (app.ts gives the reader once the scheduler exists). */
  #runs: (() => RunCaps) | undefined;
  /** Routers from inventory (src/discovery): labelled by profile and a closed set of reasons, never by target. */
  readonly #discovery: { targets: Gauge; created: Counter; expired: Counter; refused: Counter };

  /**
   * One set of metrics, written in either format: prom-client's defaults each keep an event-loop delay monitor (a
   * timer every 10 ms) and a GC observer, so a set per format doubled them. The metrics live in the text registry;
   * the OpenMetrics one serves the same objects (each counter through a view, openMetricsCounter) once they are all made.
   */
  constructor(build: BuildInfo) {
    const text = new Registry();
    const openmetrics = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
    openmetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    this.#registries = { text, openmetrics };
    const registers = [text];
    collectDefaultMetrics({ register: text });
    for (const name of LEFT_OUT_DEFAULTS) text.removeSingleMetric(name);
    registerOpenFds(text, fdCounter());
    const info = new Gauge({
      name: 'routeros_exporter_build_info',
      help: 'Version of the exporter and of Node.js it runs on; always 1.',
      labelNames: ['version', 'nodejs'],
      registers,
    });
    info.set({ version: build.version, nodejs: process.version }, 1);
    this.#reloadOk = new Gauge({
      name: 'routeros_exporter_config_last_reload_successful',
      help: '1 if the last configuration (re)load succeeded.',
      registers,
    });
    this.#reloadAt = new Gauge({
      name: 'routeros_exporter_config_last_reload_success_timestamp_seconds',
      help: 'Unix time of the last successful configuration (re)load.',
      registers,
    });
    this.#restartRequired = new Gauge({
      name: 'routeros_exporter_config_restart_required',
      help: '1 while the loaded configuration changes a setting only a restart applies (listen); the log names it.',
      registers,
    });
    this.#restartRequired.set(0);
    this.#shard = {
      index: new Gauge({
        name: 'routeros_exporter_shard_index',
        help: 'The shard of the routers this exporter polls (shard.index, --shard I/N); 0 when not sharded.',
        registers,
      }),
      count: new Gauge({
        name: 'routeros_exporter_shards',
        help: 'How many shards the routers are split into (shard.count); 1 when not sharded.',
        registers,
      }),
    };
    this.shard(undefined);
    this.#discovery = {
      targets: new Gauge({
        name: 'routeros_exporter_discovered_targets',
        help: 'Targets polled because Prometheus probed them under a profile (/probe?target=&profile=), per profile.',
        labelNames: ['profile'],
        registers,
      }),
      created: new Counter({
        name: 'routeros_exporter_discovered_targets_created_total',
        help: 'Targets that started being polled on their first probe under a profile.',
        labelNames: ['profile'],
        registers,
      }),
      expired: new Counter({
        name: 'routeros_exporter_discovered_targets_expired_total',
        help: 'Discovered targets forgotten with their series: idle (not probed for the forget period), never_answered (no job of it ever succeeded, not probed for 10 min), profile_removed, outside_allow_list (after a reload), configured (the config names it now), max_targets (a reload lowered the cap: the least recently probed go).',
        labelNames: ['profile', 'reason'],
        registers,
      }),
      refused: new Counter({
        name: 'routeros_exporter_discovery_refused_total',
        help: 'Probes under a profile refused before any connection: invalid_target, outside_allow_list, other_profile, full, cross_site (a page of another site would add one), unknown_profile (profile="").',
        labelNames: ['profile', 'reason'],
        registers,
      }),
    };
    const runs = (): RunCaps | undefined => this.#runs?.();
    for (const [name, field] of [
      ['routeros_exporter_runs_in_flight', 'inFlight'],
      ['routeros_exporter_runs_queued', 'queued'],
    ] as const) {
      new Gauge({
        name,
        help: helpOf(name),
        labelNames: ['cap'],
        registers,
        collect(): void {
          this.reset();
          const caps = runs();
          if (caps === undefined) return;
          this.set({ cap: 'quick' }, caps.quick[field]);
          this.set({ cap: 'waiting' }, caps.waiting[field]);
          this.set({ cap: 'timed' }, caps.timed[field]);
        },
      });
    }
    new Counter({
      name: 'routeros_exporter_reads_resent_total',
      help: 'Reads sent once more on a new connection because the router closed their kept connection as they went out (its idle timeout crossing the read), all routers together; keep-warm reads are not sent again.',
      registers,
      collect(): void {
        this.reset();
        this.inc(readsResent());
      },
    });
    for (const { name, type } of text.getMetricsAsArray()) {
      const metric = text.getSingleMetric(name);
      if (metric !== undefined) openmetrics.registerMetric(String(type) === 'counter' ? openMetricsCounter(name, metric) : metric);
    }
  }

  /** Where the runs-in-flight gauges read the scheduler's caps at each scrape. */
  watchRuns(read: () => RunCaps): void {
    this.#runs = read;
  }

  /** Records the outcome of a (re)load. */
  reloaded(ok: boolean, at: number = Date.now()): void {
    this.#reloadOk.set(ok ? 1 : 0);
    if (ok) this.#reloadAt.set(at / 1000);
  }

  /** The shard of the configuration in force: a rule can then tell a shard that is missing (fewer than the count). */
  shard(shard: { index: number; count: number } | undefined): void {
    this.#shard.index.set(shard?.index ?? 0);
    this.#shard.count.set(shard?.count ?? 1);
  }

  /** Whether the configuration in force asks for something the running process cannot apply without a restart. */
  restartRequired(required: boolean): void {
    this.#restartRequired.set(required ? 1 : 0);
  }

  /** Discovered targets per profile now; set whole, so a removed profile's series goes. */
  discoveredTargets(counts: ReadonlyMap<string, number>): void {
    const { targets } = this.#discovery;
    targets.reset();
    for (const [profile, count] of counts) targets.set({ profile }, count);
  }

  /** One discovery event; `reason` comes from a closed set (src/discovery/registry.ts), never from a request. */
  discoveryEvent(event: 'created' | 'expired' | 'refused', profile: string, reason?: string): void {
    if (event === 'created') this.#discovery.created.inc({ profile });
    else this.#discovery[event].inc({ profile, reason: reason ?? '' });
  }

  /** The exposition of these metrics, without OpenMetrics' `# EOF` (the caller ends the whole body). */
  async render(format: ExpositionFormat): Promise<string> {
    const text = await this.#registries[format].metrics();
    return format === 'openmetrics' ? openMetricsMetadata(text.replace(/# EOF\n?$/, '')) : text;
  }
}
