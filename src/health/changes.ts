/**
 * Verdict changes, for the log: one line when something goes bad (peer stale or never connected, interface
 * down, router down, ping losing packets, set-up check failing) and one when it recovers, never one per
 * collection. Pure: `observe` turns an evaluation into states, `diff` compares them with the last ones.
 * When a part had no data this time (router down, collector failed), its last known states carry over, so an
 * outage does not make every stale peer "new" again afterwards.
 */
import type { RouterConfig } from '../config/types.js';
import { formatAge, formatPercent, peerDisplayName } from './format.js';
import type { RouterEvaluation } from './types.js';

export interface Observation {
  state: string;
  bad: boolean;
  /** Logged when entering this state: a warning when bad, else an info line (only after a bad state). */
  message: string;
  fields: Record<string, string | number | null>;
}

export type Observed = ReadonlyMap<string, Observation>;

export interface LogLine {
  level: 'warn' | 'info';
  message: string;
  fields: Record<string, string | number | null>;
}

type Group = 'router' | 'wireguard' | 'setup' | 'pings';

function groupOf(key: string): Group {
  const group = key.slice(0, key.indexOf(':'));
  return group === 'peer' || group === 'interface' ? 'wireguard' : group === 'setup' ? 'setup' : group === 'ping' ? 'pings' : 'router';
}

export function observe(evaluation: RouterEvaluation, router: RouterConfig): Map<string, Observation> {
  const { health, problems } = evaluation;
  const name = health.name;
  const out = new Map<string, Observation>();
  const downText = problems.find((problem) => problem.kind === 'router-down')?.text ?? 'down';
  const routerState = health.up === null ? 'unknown' : health.up ? 'up' : 'down';
  out.set('router:', {
    state: routerState,
    bad: routerState === 'down',
    message: routerState === 'down' ? `router ${name} ${downText}` : `router ${name} up again`,
    fields: { event: routerState === 'down' ? 'router_down' : 'router_up' },
  });
  for (const iface of health.interfaces) {
    const state = iface.disabled ? 'disabled' : iface.running === false ? 'down' : iface.running === true ? 'running' : 'unknown';
    out.set(`interface:${iface.name}`, {
      state,
      bad: state === 'down',
      message:
        state === 'down'
          ? `interface ${iface.name} on ${name} is enabled but not running`
          : `interface ${iface.name} on ${name} ${state === 'disabled' ? 'was disabled' : 'is running again'}`,
      fields: { event: state === 'down' ? 'interface_down' : 'interface_up', interface: iface.name },
    });
    for (const check of iface.setup ?? []) {
      const fix = check.fix === undefined ? '' : ` Fix: ${check.fix.replaceAll('\n', ' ; ')}`;
      out.set(`setup:${iface.name}\u0000${check.check}`, {
        state: check.ok ? 'pass' : 'fail',
        bad: !check.ok,
        message: check.ok
          ? `set-up check ${check.check} passes again on ${name}/${iface.name}`
          : `set-up check ${check.check} fails on ${name}/${iface.name}: ${check.detail ?? ''}.${fix}`,
        fields: { event: check.ok ? 'setup_check_passed' : 'setup_check_failed', interface: iface.name, check: check.check },
      });
    }
  }
  const threshold = router.health.handshakeStaleAfterSeconds;
  for (const peer of health.peers) {
    const who = `peer ${peerDisplayName(peer.name, peer.publicKey)} on ${name}/${peer.interface}`;
    const age = peer.handshakeAgeSeconds;
    let message: string;
    if (peer.reason === 'stale' && peer.latestHandshake !== null) {
      const since = new Date(Date.parse(peer.latestHandshake) + threshold * 1000).toISOString();
      message = `${who} stale since ${since} (last handshake ${formatAge(age ?? 0)} ago)`;
    } else if (peer.reason === 'never') {
      message = `${who} has never shaken hands`;
    } else if (peer.reason === 'ok') {
      message = `${who} recovered (last handshake ${formatAge(age ?? 0)} ago)`;
    } else {
      message = `${who} is no longer judged (${peer.reason.replace('_', ' ')})`;
    }
    out.set(`peer:${peer.interface}\u0000${peer.publicKey}`, {
      state: peer.reason,
      bad: peer.judged && !peer.healthy,
      message,
      fields: {
        event: peer.judged && !peer.healthy ? `peer_${peer.reason}` : 'peer_recovered',
        interface: peer.interface,
        peer: peer.name,
        public_key: peer.publicKey,
        handshake_age_seconds: age,
      },
    });
  }
  for (const ping of health.pings) {
    const who = `ping ${ping.name}${ping.name === ping.target ? '' : ` to ${ping.target}`} from ${name}`;
    const loss = ping.lossRatio === null ? 'no result' : `${formatPercent(ping.lossRatio)} loss`;
    // Not run yet is start-up, not news.
    const state = ping.lastRun === null ? 'pending' : ping.error !== undefined ? 'failed' : ping.status;
    out.set(`ping:${ping.name}\u0000${ping.target}`, {
      state,
      bad: state !== 'pending' && ping.status !== 'ok',
      message:
        ping.status === 'ok'
          ? `${who} recovered (${loss})`
          : ping.error !== undefined
            ? `${who} could not run (${ping.error})`
            : `${who}: ${loss}${ping.status === 'critical' ? ` (critical at ${formatPercent(router.health.pingLossCritical)})` : ''}`,
      fields: { event: ping.status === 'ok' ? 'ping_recovered' : `ping_${ping.status}`, target: ping.target, ping: ping.name, loss_ratio: ping.lossRatio },
    });
  }
  return out;
}

/** The lines to log and the states to keep; `previous` undefined is the first evaluation of the router. */
export function diff(
  previous: Observed | undefined,
  current: Observed,
  seen: RouterEvaluation['seen'],
): { lines: LogLine[]; next: Map<string, Observation> } {
  const next = new Map(current);
  for (const [key, observation] of previous ?? []) {
    const group = groupOf(key);
    if (group !== 'router' && !seen[group] && !next.has(key)) next.set(key, observation);
  }
  const lines: LogLine[] = [];
  for (const [key, now] of current) {
    const before = previous?.get(key);
    if (before?.state === now.state) continue;
    if (now.bad) lines.push({ level: 'warn', message: now.message, fields: now.fields });
    else if (before?.bad === true) lines.push({ level: 'info', message: now.message, fields: now.fields });
  }
  return { lines, next };
}
