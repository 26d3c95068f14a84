/**
 * Data-plane probes for the wireguard job (`health.probe_tunnels`, off by default): one `POST /ping` from the
 * router through the tunnel (`interface=` the peer's interface, `src-address=` that interface's address,
 * `count=1`) to each always-on peer's tunnel address, at most PROBE_CONCURRENCY at once per router (RouterOS CPUs
 * are small) and PROBES_PER_RUN per run, so one probe per peer per collection at most. A handshake says the keys
 * match; only a probe says traffic passes (allowed-address and routes right).
 */
import type { HealthConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { parseRouterList } from '../routeros/decode.js';
import { expectOf, peerLabel } from '../analysis/peer.js';
import type { ProbeOutcome } from '../analysis/liveness.js';

export const PROBE_CONCURRENCY = 2;
export const PROBES_PER_RUN = 16;
export const ADDRESS_PROPLIST = ['address', 'interface', 'disabled'] as const;

export interface ProbeTarget {
  /** `interface|public-key`: the peer's identity in the run. */
  key: string;
  address: string;
  interface: string;
  src: string;
}

export const probeKey = (iface: string, publicKey: string): string => `${iface}|${publicKey}`;

const IPV4_HOST = /^(\d{1,3}(?:\.\d{1,3}){3})\/32$/;

/**
 * Which peers to probe, and why the others expected up are not: `no_tunnel_address` (no /32 IPv4 in
 * allowed-address), `no_source_address` (the interface has no IPv4 address), `over_cap` (past PROBES_PER_RUN).
 */
export function planProbes(
  interfaces: readonly RouterRecord[],
  peers: readonly RouterRecord[],
  addresses: readonly RouterRecord[],
  health: HealthConfig,
): { targets: ProbeTarget[]; skipped: Map<string, ProbeOutcome> } {
  const enabled = new Set(interfaces.filter((i) => i['disabled'] !== 'true').map((i) => i['name'] ?? ''));
  const sources = new Map<string, string>();
  for (const row of addresses) {
    const iface = row['interface'] ?? '';
    const ip = (row['address'] ?? '').split('/')[0] ?? '';
    if (row['disabled'] !== 'true' && /^\d{1,3}(\.\d{1,3}){3}$/.test(ip) && !sources.has(iface)) sources.set(iface, ip);
  }
  const targets: ProbeTarget[] = [];
  const skipped = new Map<string, ProbeOutcome>();
  for (const peer of peers) {
    const iface = peer['interface'] ?? '';
    if (peer['disabled'] === 'true' || !enabled.has(iface)) continue;
    const keepalive = (peer['persistent-keepalive'] ?? '') !== '' && !/^0+s?$/.test(peer['persistent-keepalive'] ?? '');
    const mode = expectOf({ name: peerLabel(peer['name'], peer['comment']), comment: peer['comment'], interface: iface }, health);
    if (mode === 'on_demand' || (mode === 'auto' && !keepalive)) continue;
    const key = probeKey(iface, peer['public-key'] ?? '');
    const address = parseRouterList(peer['allowed-address'] ?? '').map((a) => IPV4_HOST.exec(a)?.[1]).find((a) => a !== undefined);
    const src = sources.get(iface);
    if (address === undefined) skipped.set(key, 'no_tunnel_address');
    else if (src === undefined) skipped.set(key, 'no_source_address');
    else if (targets.length >= PROBES_PER_RUN) skipped.set(key, 'over_cap');
    else targets.push({ key, address, interface: iface, src });
  }
  return { targets, skipped };
}

type Run = (command: string, parameters: Readonly<Record<string, unknown>>, options: { signal: AbortSignal }) => Promise<unknown>;

/** A probe is answered when the last row says received > 0; a failed request is `error`, not judged. */
async function probeOne(run: Run, target: ProbeTarget, signal: AbortSignal): Promise<ProbeOutcome> {
  try {
    const reply = await run('ping', { address: target.address, interface: target.interface, 'src-address': target.src, count: '1' }, { signal });
    const rows = Array.isArray(reply) ? (reply as Record<string, unknown>[]) : [];
    const received = Number(rows.at(-1)?.['received'] ?? 0);
    return received > 0 ? 'ok' : 'failed';
  } catch (error) {
    // A run aborted (deadline, shutdown) ends the run; any other failure leaves this peer unprobed.
    if (signal.aborted) throw error;
    return 'error';
  }
}

/** Runs the probes, PROBE_CONCURRENCY at a time. */
export async function runProbes(run: Run, targets: readonly ProbeTarget[], signal: AbortSignal): Promise<Map<string, ProbeOutcome>> {
  const out = new Map<string, ProbeOutcome>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const target = targets[next++];
      if (target !== undefined) out.set(target.key, await probeOne(run, target, signal));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, targets.length) }, worker));
  return out;
}
