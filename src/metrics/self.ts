/**
 * The exporter's own metrics (build info, config reloads, process and Node.js runtime), kept in prom-client
 * registries: they are few, and prom-client's default collectors are the convention users know.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ExpositionFormat } from './negotiate.js';
import { openMetricsMetadata } from './metadata.js';
import { fdCounter, registerOpenFds } from './open-fds.js';
import { readsResent } from '../routeros/client.js';

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

export interface BuildInfo {
  version: string;
}

export class SelfMetrics {
  readonly #registries: Record<ExpositionFormat, { metrics(): Promise<string> }>;
  readonly #reloadOk: Gauge[] = [];
  readonly #reloadAt: Gauge[] = [];
  readonly #restartRequired: Gauge[] = [];
  /** Routers from inventory (src/discovery): labelled by profile and a closed set of reasons, never by target. */
  readonly #discovery: { targets: Gauge; created: Counter; expired: Counter; refused: Counter }[] = [];

  constructor(build: BuildInfo) {
    const text = new Registry();
    const openmetrics = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
    openmetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    this.#registries = { text, openmetrics };
    const openFds = fdCounter();
    for (const registry of [text, openmetrics] as Registry[]) {
      collectDefaultMetrics({ register: registry });
      for (const name of LEFT_OUT_DEFAULTS) registry.removeSingleMetric(name);
      registerOpenFds(registry, openFds);
      const info = new Gauge({
        name: 'routeros_exporter_build_info',
        help: 'Version of the exporter and of Node.js it runs on; always 1.',
        labelNames: ['version', 'nodejs'],
        registers: [registry],
      });
      info.set({ version: build.version, nodejs: process.version }, 1);
      this.#reloadOk.push(
        new Gauge({
          name: 'routeros_exporter_config_last_reload_successful',
          help: '1 if the last configuration (re)load succeeded.',
          registers: [registry],
        }),
      );
      this.#reloadAt.push(
        new Gauge({
          name: 'routeros_exporter_config_last_reload_success_timestamp_seconds',
          help: 'Unix time of the last successful configuration (re)load.',
          registers: [registry],
        }),
      );
      const restart = new Gauge({
        name: 'routeros_exporter_config_restart_required',
        help: '1 while the loaded configuration changes a setting only a restart applies (listen); the log names it.',
        registers: [registry],
      });
      restart.set(0);
      this.#restartRequired.push(restart);
      this.#discovery.push({
        targets: new Gauge({
          name: 'routeros_exporter_discovered_targets',
          help: 'Targets polled because Prometheus probed them under a profile (/probe?target=&profile=), per profile.',
          labelNames: ['profile'],
          registers: [registry],
        }),
        created: new Counter({
          name: 'routeros_exporter_discovered_targets_created_total',
          help: 'Targets that started being polled on their first probe under a profile.',
          labelNames: ['profile'],
          registers: [registry],
        }),
        expired: new Counter({
          name: 'routeros_exporter_discovered_targets_expired_total',
          help: 'Discovered targets forgotten with their series: idle (not probed for the forget period), profile_removed, outside_allow_list (after a reload), configured (the config names it now).',
          labelNames: ['profile', 'reason'],
          registers: [registry],
        }),
        refused: new Counter({
          name: 'routeros_exporter_discovery_refused_total',
          help: 'Probes under a profile refused before any connection: invalid_target, outside_allow_list, other_profile, full, unknown_profile (profile="").',
          labelNames: ['profile', 'reason'],
          registers: [registry],
        }),
      });
      new Counter({
        name: 'routeros_exporter_reads_resent_total',
        help: 'Reads sent once more on a new connection because the router closed their kept connection as they went out (its idle timeout crossing the read), all routers together.',
        registers: [registry],
        collect(): void {
          this.reset();
          this.inc(readsResent());
        },
      });
    }
  }

  /** Records the outcome of a (re)load. */
  reloaded(ok: boolean, at: number = Date.now()): void {
    for (const gauge of this.#reloadOk) gauge.set(ok ? 1 : 0);
    if (ok) for (const gauge of this.#reloadAt) gauge.set(at / 1000);
  }

  /** Whether the configuration in force asks for something the running process cannot apply without a restart. */
  restartRequired(required: boolean): void {
    for (const gauge of this.#restartRequired) gauge.set(required ? 1 : 0);
  }

  /** Discovered targets per profile now; set whole, so a removed profile's series goes. */
  discoveredTargets(counts: ReadonlyMap<string, number>): void {
    for (const { targets } of this.#discovery) {
      targets.reset();
      for (const [profile, count] of counts) targets.set({ profile }, count);
    }
  }

  /** One discovery event; `reason` comes from a closed set (src/discovery/registry.ts), never from a request. */
  discoveryEvent(event: 'created' | 'expired' | 'refused', profile: string, reason?: string): void {
    for (const metrics of this.#discovery) {
      if (event === 'created') metrics.created.inc({ profile });
      else metrics[event].inc({ profile, reason: reason ?? '' });
    }
  }

  /** The exposition of these metrics, without OpenMetrics' `# EOF` (the caller ends the whole body). */
  async render(format: ExpositionFormat): Promise<string> {
    const text = await this.#registries[format].metrics();
    return format === 'openmetrics' ? openMetricsMetadata(text.replace(/# EOF\n?$/, '')) : text;
  }
}
