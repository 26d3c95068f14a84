/**
 * A scripted stand-in for the REST client, for scheduler tests only: collectors and the client itself are
 * tested against the real emulator over HTTPS elsewhere.
 */
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { loadFixture } from './fixtures.js';

type Client = JobContext['client'];
export type Behaviour = 'ok' | 'hang' | RouterOsError;

export class FakeClient implements Client {
  behaviour: Behaviour = 'ok';
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  #releases: (() => void)[] = [];

  /** Lets every hanging request fail as if aborted. */
  releaseAll(): void {
    for (const release of this.#releases.splice(0)) release();
  }

  async #answer<T>(value: T, signal?: AbortSignal): Promise<T> {
    this.calls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.behaviour === 'hang') {
        await new Promise<void>((resolve) => {
          this.#releases.push(resolve);
          signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        throw new RouterOsError('ROS_ERR_TIMEOUT', 'GET /rest/x: no complete answer within the timeout');
      }
      if (this.behaviour instanceof RouterOsError) throw this.behaviour;
      return value;
    } finally {
      this.inFlight--;
    }
  }

  list(menu: string, options?: { signal?: AbortSignal }): Promise<RouterRecord[]> {
    const name = menu === 'interface/wireguard' ? 'wireguard-interfaces.json' : 'wireguard-peers.json';
    return this.#answer(loadFixture(name) as RouterRecord[], options?.signal);
  }

  getSingleton(_menu: string, options?: { signal?: AbortSignal }): Promise<RouterRecord> {
    return this.#answer(loadFixture('system-resource-7.19-week-uptime.json') as RouterRecord, options?.signal);
  }

  run(command: string, _parameters?: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
    return this.#answer(loadFixture(command === 'ping' ? 'ping-lossy.json' : 'bandwidth-test.json'), options?.signal);
  }
}
