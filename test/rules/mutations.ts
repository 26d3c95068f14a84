/**
 * Deliberate mistakes in the shipped rules that the promtool unit tests must catch: wrong thresholds and
 * operators, dropped guard clauses, wrong windows, plus generic ones applied to every alert (`for:` of 0 or
 * doubled, other severity) and to every recording rule (value doubled).
 */
import type { AlertRule, RecordingRule } from './rule-files.js';
import { durationSeconds, isAlertRule } from './rule-files.js';

/** [alert, text in its expr (or in its description with `description:` prefix), replacement]. */
const EDITS: [string, string, string][] = [
  ['RouterOSExporterDown', 'up == 0', 'up == 1'],
  ['RouterOSExporterDown', '[1d]', '[1m]'],
  ['RouterOSExporterDown', 'and on (job)\n', 'and on (job, instance)\n'],
  ['RouterOSExporterDown', 'max_over_time(up[1d]) == 1', 'max_over_time(up[1d]) == 2'],
  ['RouterOSExporterDown', 'max_over_time(up[1d])', 'max_over_time(up[1m])'],
  ['RouterOSExporterDown', 'ALERTS{alertname="RouterOSExporterDown", alertstate="firing"}[1h]', 'ALERTS{alertname="none"}[1h]'],
  ['RouterOSExporterDown', 'alertstate="firing"}[1h]', 'alertstate="firing"}[1m]'],
  ['RouterOSProbeFailing', 'ALERTS{alertname="RouterOSProbeFailing", alertstate="firing"}[1h]', 'ALERTS{alertname="none"}[1h]'],
  ['RouterOSProbeFailing', 'and on (job)\n', 'and on (job, instance)\n'],
  ['RouterOSProbeFailing', 'up == 0', 'up == 1'],
  ['RouterOSProbeFailing', 'routeros_up[1d]', 'routeros_up[1m]'],
  ['RouterOSProbeFailing', 'unless on (job)', 'and on (job)'],
  ['RouterOSProbeFailing', 'and on (job, instance)', 'unless on (job, instance)'],
  ['RouterOSExporterConfigReloadFailed', '== 0', '== 1'],
  ['RouterOSExporterShardMissing', '< max by (job)', '<= max by (job)'],
  ['RouterOSExporterShardMissing', 'count by (job) (count_values', 'sum by (job) (count_values'],
  ['RouterOSExporterShardMissing', '("shards", routeros_exporter_shards)) > 1', '("shards", routeros_exporter_shards)) > 2'],
  ['RouterOSExporterShardMissing', 'last_over_time(routeros_exporter_shards[1d])', 'last_over_time(routeros_exporter_shards[1m])'],
  ['RouterOSExporterShardMissing', 'unless on (job) group by (job) (up == 0)', 'unless on (job) group by (job) (up == 2)'],
  ['RouterOSExporterShardMissing', 'ALERTS{alertname="RouterOSExporterShardMissing", alertstate="firing"}[1h]', 'ALERTS{alertname="none"}[1h]'],
  ['RouterOSCollectorFailing', 'routeros_collector_success == 0', 'routeros_collector_success == 1'],
  ['RouterOSCollectorFailing', 'routeros_up == 0', 'routeros_up == 2'],
  ['RouterOSCollectorFailing', 'description:[15m]) > 0)', '[15m]) < 0)'],
  ['RouterOSCollectionStale', '> 300', '> 600'],
  ['RouterOSCollectionStale', '> 900', '> 600'],
  ['RouterOSCollectionStale', '> 900', '> 1200'],
  ['RouterOSCollectionStale', 'routeros_collector_success == 1', 'routeros_collector_success >= 0'],
  ['RouterOSCollectionStale', '{collector=~"system|interface|wireguard|ping|health"}', '{collector!="wireguard_setup"}'],
  ['RouterOSCollectionStale', '{collector=~"system|interface|wireguard|ping|health"}', '{collector=~"system|interface|wireguard|ping"}'],
  ['RouterOSCollectionStale', '> 10800', '> 3600'],
  ['RouterOSCollectionStale', '> 10800', '> 21600'],
  ['RouterOSDown', '== 0', '!= 0'],
  ['RouterOSDown', 'description:collector="system"', 'collector="ping"'],
  ['RouterOSRebooted', '> 0', '> 1'],
  ['RouterOSRebooted', '[30m]', '[5m]'],
  ['RouterOSRebooted', '\nand routeros_system_uptime_seconds', ''],
  ['RouterOSHighCpuLoad', '> 0.9', '> 0.96'],
  ['RouterOSHighCpuLoad', 'avg_over_time', 'max_over_time'],
  ['RouterOSHighCpuLoad', '\nand routeros_system_cpu_load_ratio', ''],
  ['RouterOSMemoryLow', '< 0.1', '< 0.05'],
  ['RouterOSMemoryLow', '< 0.1', '<= 0.1'],
  ['RouterOSDiskFillingUp', '< 0.25', '< 0.2'],
  ['RouterOSDiskFillingUp', '24 * 3600', '3600'],
  ['RouterOSDiskFillingUp', '\nand\n', '\nor\n'],
  ['RouterOSWireGuardInterfaceNotRunning', 'routeros_wireguard_interface_running == 0', 'routeros_wireguard_interface_running == 1'],
  ['RouterOSWireGuardInterfaceNotRunning', 'routeros_wireguard_interface_disabled == 0', 'routeros_wireguard_interface_disabled >= 0'],
  ['RouterOSWireGuardPeerHandshakeStale', 'min_over_time(routeros_wireguard_peer_healthy[2m]) == 0', 'min_over_time(routeros_wireguard_peer_healthy[2m]) == 1'],
  ['RouterOSWireGuardPeerHandshakeStale', 'min_over_time(routeros_wireguard_peer_healthy[2m])', 'routeros_wireguard_peer_healthy'],
  ['RouterOSWireGuardPeerHandshakeStale', 'collector="wireguard"} == 0', 'collector="wireguard"} == 1'],
  ['RouterOSWireGuardPeerHandshakeStale', 'alertstate="firing"', 'alertstate="pending"'],
  ['RouterOSWireGuardPeerHandshakeStale', 'on (instance, job, router) (routeros_collector_success', 'on (router) (routeros_collector_success'],
  ['RouterOSWireGuardPeerHandshakeStale', 'routeros_wireguard_interface_running == 0', 'routeros_wireguard_interface_running == 2'],
  ['RouterOSWireGuardPeerHandshakeStale', 'description:public_key=%q}[5m]) > 0)', 'public_key=%q}[5m]) >= 0)'],
  ['RouterOSWireGuardPeerHandshakeStale', 'description:public_key=%q}[5m]) > time()', 'public_key=%q}[5m]) < time()'],
  ['RouterOSWireGuardPeerHandshakeStale', 'description:public_key=%q} == 1', 'public_key=%q} == 0'],
  ['RouterOSWireGuardPeerHandshakeStale', 'description:last_over_time(routeros_wireguard_peer_latest_handshake_timestamp_seconds{instance=%q, router=%q, interface=%q, public_key=%q}[5m])', 'routeros_wireguard_peer_latest_handshake_timestamp_seconds{instance=%q, router=%q, interface=%q, public_key=%q}'],
  ['RouterOSWireGuardSetupCheckFailing', 'routeros_wireguard_interface_setup_ok == 0', 'routeros_wireguard_interface_setup_ok == 1'],
  ['RouterOSWireGuardSetupCheckFailing', 'routeros_wireguard_interface_disabled == 0', 'routeros_wireguard_interface_disabled >= 0'],
  ['RouterOSPingFailing', '== 0', '== 1'],
  ['RouterOSPingPacketLoss', ') > 0', ') > 0.2'],
  ['RouterOSPingPacketLoss', 'routeros_ping_success == 1', 'routeros_ping_success >= 0'],
  // The guard as it was: released when the exporter goes away, while the 10-minute window lingers.
  ['RouterOSPingPacketLoss', 'and (routeros_ping_success == 1)', 'unless on (router, target, name) (routeros_ping_success == 0)'],
  ['RouterOSPingPacketLossHigh', '>= 0.5', '>= 0.7'],
  ['RouterOSPingPacketLossHigh', '>= 0.5', '>= 0.3'],
  ['RouterOSPingPacketLossHigh', 'routeros_ping_success == 1', 'routeros_ping_success >= 0'],
  ['RouterOSPingPacketLossHigh', 'and (routeros_ping_success == 1)', 'unless on (router, target, name) (routeros_ping_success == 0)'],
  ['RouterOSPingLatencyHigh', '> 0.2', '> 0.3'],
  ['RouterOSPingLatencyHigh', '> 0.2', '> 0.15'],
  ['RouterOSPingLatencyHigh', '{stat="avg"}', ''],
  ['RouterOSPingLatencyHigh', '\nand (routeros_ping_success == 1)', ''],
  ['RouterOSBandwidthTestFailing', '== 0', '== 1'],
  ['RouterOSUplinkFlapping', '>= 3', '>= 2'],
  ['RouterOSUplinkFlapping', '>= 3', '>= 4'],
  ['RouterOSUplinkFlapping', '[15m]', '[5m]'],
  ['RouterOSUplinkFlapping', '{type="ether"}', ''],
  ['RouterOSUplinkFlapping', '\nand routeros_interface_running', ''],
];

export interface Mutation {
  /** The alert or record it alters. */
  rule: string;
  what: string;
  /** A mutated copy of the rule; throws when the mutation does not apply, so none is silently a no-op. */
  apply: (rule: AlertRule | RecordingRule) => AlertRule | RecordingRule;
}

function replaceOnce(text: string, from: string, to: string, where: string): string {
  if (!text.includes(from)) throw new Error(`${where}: ${JSON.stringify(from)} not found`);
  return text.replace(from, to);
}

function edit(alert: string, from: string, to: string): Mutation {
  const inDescription = from.startsWith('description:');
  const needle = inDescription ? from.slice('description:'.length) : from;
  return {
    rule: alert,
    what: `${inDescription ? 'description' : 'expr'}: ${JSON.stringify(needle)} -> ${JSON.stringify(to)}`,
    apply: (rule) => {
      if (!isAlertRule(rule)) throw new Error(`${alert} is not an alert`);
      if (!inDescription) return { ...rule, expr: replaceOnce(rule.expr, needle, to, alert) };
      const description = replaceOnce(rule.annotations?.description ?? '', needle, to, alert);
      return { ...rule, annotations: { ...rule.annotations, description } };
    },
  };
}

function generic(rule: AlertRule | RecordingRule): Mutation[] {
  if (!isAlertRule(rule)) {
    return [{ rule: rule.record, what: 'value doubled', apply: () => ({ ...rule, expr: `(${rule.expr}) * 2` }) }];
  }
  const forSeconds = durationSeconds(rule.for ?? '0s');
  const severity = rule.labels?.severity === 'critical' ? 'warning' : 'critical';
  return [
    { rule: rule.alert, what: 'for: 0s', apply: () => ({ ...rule, for: '0s' }) },
    { rule: rule.alert, what: `for: ${forSeconds * 2}s`, apply: () => ({ ...rule, for: `${forSeconds * 2}s` }) },
    { rule: rule.alert, what: `severity: ${severity}`, apply: () => ({ ...rule, labels: { ...rule.labels, severity } }) },
  ];
}

/** Every mutation for the given rules: the explicit edits above plus the generic ones. */
export function mutationsFor(rules: (AlertRule | RecordingRule)[]): Mutation[] {
  const names = new Set(rules.map((r) => (isAlertRule(r) ? r.alert : r.record)));
  const unknown = EDITS.filter(([alert]) => !names.has(alert)).map(([alert]) => alert);
  if (unknown.length > 0) throw new Error(`mutations for unknown alerts: ${unknown.join(', ')}`);
  return [...EDITS.map(([alert, from, to]) => edit(alert, from, to)), ...rules.flatMap(generic)];
}
