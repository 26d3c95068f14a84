/** The metric reference in docs/metrics.md, generated from the family registry so it cannot drift. */
import { FAMILIES } from './families.js';
import { openMetricsFamilyName, unitOf, type MetadataType } from './metadata.js';

/** Exporter self-metrics served from prom-client, besides its default process_* and nodejs_* metrics. */
export const SELF_METRICS = [
  { name: 'routeros_exporter_build_info', type: 'info', labels: ['version', 'nodejs'], help: 'Version of the exporter and of Node.js it runs on; always 1.' },
  { name: 'routeros_exporter_config_last_reload_successful', type: 'gauge', labels: [], help: '1 if the last configuration (re)load succeeded.' },
  { name: 'routeros_exporter_config_last_reload_success_timestamp_seconds', type: 'gauge', labels: [], help: 'Unix time of the last successful configuration (re)load.' },
  { name: 'routeros_exporter_config_restart_required', type: 'gauge', labels: [], help: '1 while the loaded configuration changes a setting only a restart applies (listen); the log names it.' },
  { name: 'routeros_exporter_shard_index', type: 'gauge', labels: [], help: 'The shard of the routers this exporter polls (shard.index, --shard I/N); 0 when not sharded.' },
  { name: 'routeros_exporter_shards', type: 'gauge', labels: [], help: 'How many shards the routers are split into (shard.count); 1 when not sharded.' },
  { name: 'routeros_exporter_discovered_targets', type: 'gauge', labels: ['profile'], help: 'Targets polled because Prometheus probed them under a profile (/probe?target=&profile=), per profile.' },
  { name: 'routeros_exporter_discovered_targets_created_total', type: 'counter', labels: ['profile'], help: 'Targets that started being polled on their first probe under a profile.' },
  {
    name: 'routeros_exporter_discovered_targets_expired_total',
    type: 'counter',
    labels: ['profile', 'reason'],
    help: 'Discovered targets forgotten with their series: idle (not probed for the forget period), never_answered (no job of it ever succeeded, not probed for 10 min), profile_removed, outside_allow_list (after a reload), configured (the config names it now), max_targets (a reload lowered the cap: the least recently probed go).',
  },
  {
    name: 'routeros_exporter_discovery_refused_total',
    type: 'counter',
    labels: ['profile', 'reason'],
    help: 'Probes under a profile refused before any connection: invalid_target, outside_allow_list, other_profile, full, cross_site (a page of another site would add one), unknown_profile (profile="").',
  },
  {
    name: 'routeros_exporter_runs_in_flight',
    type: 'gauge',
    labels: ['cap'],
    help: "Collector runs holding a permit, by cap: quick (32, answering routers' runs for their first 2 s), waiting (128, runs of routers that did not answer their last run but bandwidth tests, and runs moved there after 2 s, carried past the 128), timed (512 pings and 32 bandwidth tests, which last seconds by design).",
  },
  { name: 'routeros_exporter_runs_queued', type: 'gauge', labels: ['cap'], help: 'Collector runs waiting for a permit, by cap (see routeros_exporter_runs_in_flight).' },
  {
    name: 'routeros_exporter_reads_resent_total',
    type: 'counter',
    labels: [],
    help: 'Reads sent once more on a new connection because the router closed their kept connection as they went out (its idle timeout crossing the read), all routers together; keep-warm reads are not sent again.',
  },
] as const satisfies readonly { name: string; type: MetadataType; labels: readonly string[]; help: string }[];

/**
 * The metric names of the user contract, as served. The project owns its contract now: these names are
 * promised to users (dashboards, alerts, queries), so a test fails if one of them stops being served, and
 * renaming one is a breaking change.
 */
export const CONTRACT_METRIC_NAMES = [
  'routeros_up',
  'routeros_collector_success',
  'routeros_collector_duration_seconds',
  'routeros_collector_last_success_timestamp_seconds',
  'routeros_collector_errors_total',
  'routeros_system_info',
  'routeros_system_cpu_load_ratio',
  'routeros_system_cpu_cores',
  'routeros_system_cpu_frequency_hertz',
  'routeros_system_memory_free_bytes',
  'routeros_system_memory_total_bytes',
  'routeros_system_disk_free_bytes',
  'routeros_system_disk_total_bytes',
  'routeros_system_uptime_seconds',
  'routeros_wireguard_interface_info',
  'routeros_wireguard_interface_running',
  'routeros_wireguard_interface_disabled',
  'routeros_wireguard_interface_listen_port',
  'routeros_wireguard_interface_mtu_bytes',
  'routeros_wireguard_interface_setup_ok',
  'routeros_wireguard_peer_info',
  'routeros_wireguard_peer_receive_bytes_total',
  'routeros_wireguard_peer_transmit_bytes_total',
  'routeros_wireguard_peer_latest_handshake_timestamp_seconds',
  'routeros_wireguard_peer_disabled',
  'routeros_wireguard_peer_healthy',
  'routeros_ping_success',
  'routeros_ping_rtt_seconds',
  'routeros_ping_loss_ratio',
  'routeros_ping_packets_sent_total',
  'routeros_ping_packets_received_total',
  'routeros_bandwidth_test_receive_bytes_per_second',
  'routeros_bandwidth_test_transmit_bytes_per_second',
  'routeros_bandwidth_test_lost_packets',
  'routeros_bandwidth_test_last_run_timestamp_seconds',
  'routeros_bandwidth_test_success',
  'routeros_exporter_build_info',
  'routeros_exporter_config_last_reload_successful',
  'routeros_exporter_config_last_reload_success_timestamp_seconds',
] as const;

/** Contract draft names served under another name (promtool lint), contract name → served name. */
export const CONTRACT_RENAMES: Readonly<Record<string, string>> = {
  routeros_system_cpu_count: 'routeros_system_cpu_cores',
  routeros_bandwidth_test_receive_bits_per_second: 'routeros_bandwidth_test_receive_bytes_per_second',
  routeros_bandwidth_test_transmit_bits_per_second: 'routeros_bandwidth_test_transmit_bytes_per_second',
};

/** The contract's metric names as the exporter serves them. */
export function servedContractNames(contractNames: Iterable<string>): Set<string> {
  return new Set([...contractNames].map((name) => CONTRACT_RENAMES[name] ?? name));
}

/** One table row: name, type, OpenMetrics unit, labels, meaning. */
function row(name: string, type: MetadataType, labels: readonly string[], help: string): string {
  const unit = unitOf(openMetricsFamilyName(name, type), type);
  return `| \`${name}\` | ${type} | ${unit} | ${labels.map((l) => `\`${l}\``).join(', ')} | ${help.replace(/\|/g, '\\|')} |`;
}

export function metricsMarkdown(): string {
  const rows = FAMILIES.map((family) => row(family.name, family.type, ['router', ...family.labels], family.help));
  const selfRows = SELF_METRICS.map((metric) => row(metric.name, metric.type, metric.labels, metric.help));
  return `<!-- Generated by \`npx tsx scripts/gen-metrics-doc.ts\` from src/metrics/families.ts and src/collectors/*.contract.ts; a test keeps it current. -->
# Metrics

Every router series carries \`router\` (the configured name). A series exists only while its object exists:
a removed peer, interface or router loses its series at the next collection. When a collector fails, its data
series are dropped (not frozen) and \`routeros_collector_success\` goes to 0 with the reason counted in
\`routeros_collector_errors_total\`. A value that does not decode, or cannot be what its field is (a negative
counter, a load over 100 %, a handshake before 2015: the range rules are in
[health.md](health.md#values-the-router-sends-that-cannot-be-range-rules)), leaves its series out and is counted
in \`routeros_collector_decode_errors_total\`; the rest of the run stands. A read that only adds to a run (the ethernet
link rates, the tunnel probes' source addresses, the router's start for peers without a handshake, the set-up audit's
interface lists) leaves its part
out when it fails, not the run; the job logs a warning saying what and why when a part is left out or its cause
(the error's kind, not the HTTP status a gateway picks) changes, and a line when that part answers again (a run that does not make the read, such as one with no running
ethernet port, says nothing either way; a reload keeps what was left out).

Series that would only ever say 0 are left out, as mature exporters do (a fleet of 2,000 small routers had a
tenth of its series in such zeros): \`routeros_collector_errors_total\` has a series for a reason from that
reason's first failure on, and \`routeros_wireguard_peer_persistent_keepalive_seconds\` exists only for peers
with keepalive on. Alert on \`routeros_collector_success == 0\`, which always exists; the error counter says why
(\`increase()\` does not see a new series' first failure, so do not alert on the counter alone). Where a query needs
the zeros, add them: \`routeros_wireguard_peer_persistent_keepalive_seconds or (routeros_wireguard_peer_disabled * 0)\`.

A label value a router sends (an interface, peer or sensor name, a comment) is written whole up to 1,024
characters (a comment is read only that far); a longer one, which no RouterOS name is, is written as its start, \`…\` and 16 hex digits of a
digest of it keyed per process (HMAC-SHA-256), so it stays readable, the same from scrape to scrape until the
exporter restarts, and apart from any other value (unkeyed, the digest of a name that held a password could be
checked against guesses). A password the
exporter knows, echoed into such a value by a router or a proxy (in any of the forms the logs redact), is written
as \`[REDACTED:<8 hex digits>]\`, a digest keyed per process: two names that differ only in the secret stay two
series, the same until the exporter restarts ([security](security.md)).

Names are those of the samples. *unit* is what OpenMetrics scrapes get in \`# UNIT\` (the name's suffix). An
*info* metric is a gauge of 1 whose labels carry text: typed \`gauge\` in the text format 0.0.4, which has no
info type, and \`info\` in OpenMetrics, where its family is named without \`_info\` (\`# TYPE routeros_system info\`
over samples \`routeros_system_info{…} 1\`); a counter's OpenMetrics family is likewise named without \`_total\`.

## Router metrics

| metric | type | unit | labels | meaning |
|---|---|---|---|---|
${rows.join('\n')}

## Exporter metrics

| metric | type | unit | labels | meaning |
|---|---|---|---|---|
${selfRows.join('\n')}

Plus prom-client's default \`process_*\` and \`nodejs_*\` metrics, without its six \`nodejs_active_*\` gauges: the
three \`*_total\` ones break the \`_total\`-is-a-counter convention, and all six list every handle, request or
resource of the process at each scrape, which grows with the fleet (~1 ms of each scrape at 2,000 router
connections) for a breakdown no alert or dashboard uses. \`process_open_fds\` still counts the connections, read
as one stat of /proc/self/fd on Linux 6.2 and later rather than by listing it (~1.9 ms of each scrape at 2,000
routers); older kernels are still listed.

## Stability

The ${CONTRACT_METRIC_NAMES.length} names of the user contract (\`CONTRACT_METRIC_NAMES\` in src/metrics/doc.ts) are stable:
a test fails if one of them stops being served, and renaming one is a breaking change. Names added since
are listed above with them.

## Differences from the contract draft

| contract draft | served as | why |
|---|---|---|
| \`routeros_system_cpu_count\` | \`routeros_system_cpu_cores\` | \`promtool check metrics\`: non-histogram metrics must not end in \`_count\` |
| \`routeros_bandwidth_test_receive_bits_per_second\` | \`routeros_bandwidth_test_receive_bytes_per_second\` | \`promtool check metrics\`: use the base unit bytes (value = RouterOS bits/s ÷ 8) |
| \`routeros_bandwidth_test_transmit_bits_per_second\` | \`routeros_bandwidth_test_transmit_bytes_per_second\` | as above |
`;
}
