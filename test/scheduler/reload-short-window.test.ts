/**
 * A reload that changes a router's labels (or its health settings, or a timeout) at the same URL replaces its
 * wireguard job, which runs at once with its counters carried: a window of a few seconds. A healthy idle tunnel the
 * far end was waking, its handshake response lost once more, read `down` for that run (stop 71's note). The daemon's
 * runs carry the last long-enough window's movement across it (collectors/wireguard-counters.ts); a scheduler given
 * a minimum of 0 (`check`'s) judges the short window as it is.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { evaluateRouter } from '../../src/health/evaluate.js';

const T0 = Date.UTC(2026, 11, 5, 4, 0, 0);

/** A branch whose tunnel has been idle 1,000 s; the far end's handshake initiations add to rx, the lost responses to tx. */
class Branch implements Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> {
  tries = 0;

  list(menu: string): Promise<RouterRecord[]> {
    if (menu === 'interface/wireguard') return Promise.resolve([{ '.id': '*1', name: 'wg0', 'public-key': 'b'.repeat(43) + '=', 'listen-port': '13231', running: 'true', disabled: 'false' }]);
    return Promise.resolve([
      {
        '.id': '*2',
        interface: 'wg0',
        'public-key': 'a'.repeat(43) + '=',
        name: 'hq',
        'endpoint-address': '203.0.113.7',
        'endpoint-port': '13231',
        rx: String(1_000 + this.tries * 148),
        tx: String(1_000 + this.tries * 92),
        'last-handshake': formatSeconds(1_000),
        disabled: 'false',
      },
    ]);
  }

  getSingleton(): Promise<RouterRecord> {
    return Promise.reject(new Error('no uptime asked for'));
  }

  run(): Promise<unknown> {
    return Promise.reject(new Error('no commands here'));
  }
}

function configWith(site: string) {
  return testConfig({
    defaults: { username: 'u', password: 'p', collectors: { system: false, interface: false, wireguard: true, health: false, firmware: false } },
    routers: [{ name: 'branch', url: 'https://192.0.2.1', labels: { site } }],
  });
}

/** The peer's state as /health judges it at each read, through a reload after the second. */
async function peerStates(minCounterWindowSeconds?: number): Promise<string[]> {
  const branch = new Branch();
  const store = new SnapshotStore();
  let seconds = 0;
  const scheduler = new Scheduler({
    store,
    logger: captureLogs().logger,
    clientFor: () => branch as unknown as JobContext['client'],
    jitter: false,
    now: () => T0 + seconds * 1000,
    elapsed: () => 50_000 + seconds * 1000,
    ...(minCounterWindowSeconds === undefined ? {} : { minCounterWindowSeconds }),
  });
  const states: string[] = [];
  let config = configWith('a');
  const readAt = async (at: number, tries: number): Promise<void> => {
    seconds = at;
    branch.tries = tries;
    expect(await scheduler.runAllOnce()).toEqual(['ok']);
    const router = config.routers[0];
    if (router === undefined) throw new Error('no router');
    const judged = evaluateRouter(router, store.snapshots('branch'), T0 + at * 1000).judgements.map(({ verdict }) => verdict.state);
    states.push(judged.join(','));
  };
  scheduler.load(config);
  await readAt(0, 0);
  // The far end initiates at 10 s; the response is lost.
  await readAt(15, 1);
  // The labels change: the job is replaced and runs 3 s after its last run; the far end's retry at 15.3 s was lost too.
  config = configWith('b');
  scheduler.load(config);
  await readAt(18, 2);
  await scheduler.stop();
  return states;
}

describe('a reload that replaces the wireguard job at the same URL, 3 s after its last run', () => {
  it('carries the last 15 s window: the tunnel the far end is waking stays idle', async () => {
    expect(await peerStates()).toEqual(['idle', 'idle', 'idle']);
  });

  it('judged as it is (a minimum of 0, as `check` asks), the 3 s window confirms the look and pages', async () => {
    expect(await peerStates(0)).toEqual(['idle', 'idle', 'down']);
  });
});
