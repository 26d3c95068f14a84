/**
 * The Nagios plugin convention for `check` (Monitoring Plugins development guidelines): the first line is
 * `ROUTEROS <STATE> - <summary>`, details follow one per line, and performance data comes after a `|`
 * (`'label'=value[unit];warn;crit;min;max`, labels quoted, units s, % and ms). Exit 0 OK, 1 WARNING,
 * 2 CRITICAL, 3 UNKNOWN. degraded maps to WARNING and critical to CRITICAL; UNKNOWN is for "could not tell":
 * no routers, or not one router reachable.
 */
import type { RouterConfig } from '../config/types.js';
import { stripControls } from '../util/text.js';
import { counted } from './format.js';
import type { Evaluated } from './report.js';
import type { RouterEvaluation, Status } from './types.js';

export type NagiosState = 'OK' | 'WARNING' | 'CRITICAL' | 'UNKNOWN';
export const EXIT_CODES: Readonly<Record<NagiosState, number>> = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 };
const STATE_OF: Readonly<Record<Status, NagiosState>> = { ok: 'OK', degraded: 'WARNING', critical: 'CRITICAL' };

export interface CheckOutput {
  state: NagiosState;
  code: number;
  /** Every line, each ending in a newline. */
  text: string;
}

/**
 * `|` starts performance data and a newline a new line: neither may come from a router's names; nor may a
 * terminal control (C1 too: 0x9B is a one-byte CSI) or a bidi override that reorders what the operator reads.
 */
export function plain(text: string): string {
  return stripControls(text).replaceAll('|', '/');
}

export function output(state: NagiosState, summary: string, details: readonly string[] = [], perfdata: readonly string[] = []): CheckOutput {
  const lines = [`ROUTEROS ${state} - ${plain(summary)}`, ...details.map(plain)];
  if (perfdata.length > 0) lines.push(`| ${perfdata.join(' ')}`);
  return { state, code: EXIT_CODES[state], text: lines.map((line) => `${line}\n`).join('') };
}

export function formatCheck({ report, evaluations }: Evaluated, routers: readonly RouterConfig[]): CheckOutput {
  if (evaluations.length === 0) return output('UNKNOWN', 'no routers configured');
  const details = evaluations.flatMap(detailLines);
  if (evaluations.every((evaluation) => evaluation.health.up !== true)) {
    const names = evaluations.map((evaluation) => `${evaluation.health.name} (${evaluation.problems[0]?.brief || 'not tried'})`);
    return output('UNKNOWN', `no router could be reached: ${names.join(', ')}`, details);
  }
  return output(STATE_OF[report.status], report.summary, details, perfdata(evaluations, routers));
}

function detailLines({ health, problems }: RouterEvaluation): string[] {
  const lines = problems.map((problem) => `[${STATE_OF[problem.status]}] ${problem.subject}: ${problem.text}`);
  const state = health.up === false ? 'down' : 'up';
  const enabled = health.interfaces.filter((iface) => !iface.disabled).length;
  const judged = health.peers.filter((peer) => peer.judged).length;
  lines.push(
    `[${STATE_OF[health.status]}] ${health.name}: ${state}, last success ${health.lastSuccess ?? 'never'}; ` +
      `${counted(enabled, 'interface')}, ${counted(health.peers.length, 'peer')} (${judged} judged), ${counted(health.pings.length, 'ping target')}`,
  );
  return lines;
}

/** A perfdata label: quoted by the caller; `'` and `=` are the two characters a label may not hold. */
function label(...parts: string[]): string {
  return `'${plain(parts.join('_')).replace(/['=]/g, '_')}'`;
}

function perfdata(evaluations: readonly RouterEvaluation[], routers: readonly RouterConfig[]): string[] {
  const out: string[] = [];
  for (const { health } of evaluations) {
    const router = routers.find((candidate) => candidate.name === health.name);
    const lossCritical = router === undefined ? '' : Number((router.health.pingLossCritical * 100).toFixed(1));
    for (const peer of health.peers) {
      if (!peer.judged) continue;
      const name = peer.name !== '' ? peer.name : peer.publicKey.slice(0, 8);
      // U is the guidelines' "undetermined": a peer that never shook hands has no age.
      const value = peer.handshakeAgeSeconds === null ? 'U' : `${peer.handshakeAgeSeconds}s`;
      // The critical threshold is the peer's own bound (keepalive or handshake_stale_after); none for idle peers.
      out.push(`${label(health.name, peer.interface, name, 'handshake_age')}=${value};;${peer.handshakeBoundSeconds ?? ''};0`);
    }
    for (const ping of health.pings) {
      if (ping.lossRatio !== null) {
        out.push(`${label(health.name, ping.name, 'loss')}=${Number((ping.lossRatio * 100).toFixed(1))}%;0;${lossCritical};0;100`);
      }
      if (ping.rttSeconds.avg !== null) {
        out.push(`${label(health.name, ping.name, 'rtt')}=${Number((ping.rttSeconds.avg * 1000).toFixed(3))}ms;;;0`);
      }
    }
  }
  return out;
}
