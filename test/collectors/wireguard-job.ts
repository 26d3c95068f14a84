/**
 * The real wireguard job driven read by read, with one memory across the reads: each read gives the router's replies
 * and the exporter's clocks, and answers the job's samples as text. What tests of the job's memory across runs (the
 * reboot grace, the counter window) share.
 */
import { wireguardCollector } from '../../src/collectors/wireguard.js';
import type { JobContext } from '../../src/collectors/types.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from './sample-text.js';

export interface JobRead {
  interfaces: readonly RouterRecord[];
  peers: readonly RouterRecord[];
  /** The router's uptime (s), when the job asks; undefined: the read times out. */
  uptimeSeconds?: number | undefined;
  /** The exporter's wall clock (Unix ms) and monotonic clock (ms) at the read. */
  wallMs: number;
  elapsedMs: number;
}

/** A job on a 15 s schedule and its memory; `minCounterWindowSeconds` as the scheduler would give it (absent: the daemon's). */
export function wireguardJob(minCounterWindowSeconds?: number): (read: JobRead) => Promise<string> {
  const router = testRouter({ schedules: { wireguard: '*/15 * * * * *' } });
  const [job] = wireguardCollector.jobs(router);
  if (job === undefined) throw new Error('no wireguard job');
  const memory = new Map<string, number>();
  return async (read) => {
    const client = {
      list: (path: string) => Promise.resolve(path === 'interface/wireguard' ? read.interfaces : read.peers),
      getSingleton: () =>
        read.uptimeSeconds === undefined
          ? Promise.reject(new RouterOsError('ROS_ERR_TIMEOUT', 'GET /rest/system/resource: no complete answer within the timeout'))
          : Promise.resolve({ uptime: formatSeconds(read.uptimeSeconds) }),
      run: () => Promise.reject(new Error('no probes')),
    } as unknown as JobContext['client'];
    const result = await job.run({
      router,
      client,
      routerLabel: routerLabel('hub'),
      now: () => read.wallMs,
      elapsed: () => read.elapsedMs,
      signal: new AbortController().signal,
      memory,
      ...(minCounterWindowSeconds === undefined ? {} : { minCounterWindowSeconds }),
    });
    return sampleText(result.samples);
  };
}

/** A peer's `state` and `healthy` in a job's text, as `state/healthy` (`undefined` where a series is absent). */
export function peerVerdict(text: string, name: string): string {
  const lines = text.split('\n').filter((line) => line.includes(`name="${name}"`));
  const state = lines.map((line) => /^routeros_wireguard_peer_state\{[^}]*state="([a-z]+)"\} 1$/.exec(line)?.[1]).find((found) => found !== undefined);
  const healthy = lines.map((line) => /^routeros_wireguard_peer_healthy\{[^}]*\} ([01])$/.exec(line)?.[1]).find((found) => found !== undefined);
  return `${String(state)}/${String(healthy)}`;
}
