/** Job snapshots for verdict tests, made by the real collector mappings from router-shaped records. */
import type { RouterConfig } from '../../src/config/types.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import type { ErrorReason } from '../../src/routeros/errors.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { mapPing, pingCollector } from '../../src/collectors/ping.js';
import { mapWireguardSetup } from '../../src/collectors/wireguard-setup.js';
import type { SetupRecords } from '../../src/analysis/setup-audit.js';
import { routerLabel } from '../../src/metrics/family.js';

export const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

function snapshot(collector: JobSnapshot['collector'], job: string, at: number, data: unknown): JobSnapshot {
  return { collector, job, ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.01, lastSuccessAt: at, chunks: [], data };
}

export function failed(collector: JobSnapshot['collector'], job: string, reason: ErrorReason, at = T0, lastSuccessAt?: number): JobSnapshot {
  return { collector, job, ok: false, reason, finishedAt: at, durationSeconds: 10, lastSuccessAt, chunks: [], data: undefined };
}

export function systemOk(at = T0): JobSnapshot {
  return snapshot('system', 'system', at, { version: '7.19.4 (stable)' });
}

export function wireguard(router: RouterConfig, interfaces: RouterRecord[], peers: RouterRecord[], at = T0): JobSnapshot {
  return snapshot('wireguard', 'wireguard', at, mapWireguard(interfaces, peers, routerLabel('x'), router.health, at).data);
}

export function setup(records: SetupRecords, at = T0): JobSnapshot {
  return snapshot('wireguard_setup', 'wireguard_setup', at, mapWireguardSetup(records, routerLabel('x'), at).data);
}

/** A ping snapshot for the router's target `index` whose last row says `loss` percent. */
export function ping(router: RouterConfig, index: number, loss: number, at = T0): JobSnapshot {
  const target = router.ping[index];
  const job = pingCollector.jobs(router)[index];
  if (target === undefined || job === undefined) throw new Error(`no ping target ${index}`);
  // 100 sent, so the counts (which the loss is taken from) and packet-loss agree for any whole percent.
  const row: Record<string, string> = { host: target.target, sent: '100', received: String(100 - loss), 'packet-loss': String(loss) };
  if (loss < 100) Object.assign(row, { 'min-rtt': '1ms', 'avg-rtt': '2ms500us', 'max-rtt': '4ms' });
  return snapshot('ping', job.job, at, mapPing([row], { ...target, count: 100 }, routerLabel('x'), new Map()).data);
}

export function pingJob(router: RouterConfig, index: number): string {
  const job = pingCollector.jobs(router)[index];
  if (job === undefined) throw new Error(`no ping target ${index}`);
  return job.job;
}

/**
 * Defaults that declare the test interface `wg-branch` an always-on site link: its peers (no keepalive in these
 * records) are then judged against handshake_stale_after, as every peer was before liveness states.
 */
export const SITE_LINKS = { health: { expect: { 'wg-branch': 'always' } } };

export const WG_UP: RouterRecord = { name: 'wg-branch', 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13231' };

export function peerRecord(name: string, lastHandshake: string | undefined, extra: Record<string, string> = {}): RouterRecord {
  const record: Record<string, string> = {
    interface: 'wg-branch',
    'public-key': `${name}-key-0000000000000000000000000000000=`,
    name,
    disabled: 'false',
    'allowed-address': '10.10.0.2/32',
    ...extra,
  };
  if (lastHandshake !== undefined) record['last-handshake'] = lastHandshake;
  return record;
}
