/**
 * A router's reads take turns on its one connection (and share one abort signal while none is stopped): over
 * real HTTPS against the emulator, a read that times out or is aborted stops itself only — the reads queued
 * behind it, and the one in flight ahead of it, carry on.
 */
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { RouterOsClient } from '../../src/routeros/client.js';
import { EmulatorJobs } from '../helpers/emulator-jobs.js';

let emulator: Emulator;
const jobs = new EmulatorJobs(() => emulator);

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'q' }] });
});

// Each test slows or hangs system/resource; none leaves it so for the next.
afterEach(() => {
  emulator.router('q').clearFaults();
});

afterAll(async () => {
  await jobs.close();
  await emulator.close();
});

const client = (timeoutMs: number): RouterOsClient => jobs.client('q', { timeoutMs });

describe('the read queue', () => {
  it('a read that times out stops alone: the one queued behind it and the next one are answered', async () => {
    emulator.router('q').setFaults({ path: 'system/resource', hang: true });
    const reads = client(3_000);
    const hanging = reads.getSingleton('system/resource', { timeoutMs: 300 });
    const queued = reads.list('interface');
    await expect(hanging).rejects.toMatchObject({ code: 'ROS_ERR_TIMEOUT' });
    expect(Array.isArray(await queued)).toBe(true);
    expect(Array.isArray(await reads.list('interface/wireguard'))).toBe(true);
  });

  it('a read whose timeout runs out while it waits its turn says it was never sent, not that the router did not answer it', async () => {
    emulator.router('q').setFaults({ path: 'system/resource', latencyMs: 400 });
    const reads = client(3_000);
    const ahead = reads.getSingleton('system/resource');
    const queued = reads.list('interface', { timeoutMs: 150 });
    await expect(queued).rejects.toMatchObject({ code: 'ROS_ERR_TIMEOUT', message: expect.stringMatching(/not sent: still waiting for the router's connection behind its other reads/) as unknown });
    expect(typeof (await ahead)).toBe('object');
  });

  it("a queued read aborted by its caller leaves the read in flight ahead of it alone", async () => {
    emulator.router('q').setFaults({ path: 'system/resource', latencyMs: 300 });
    const reads = client(3_000);
    const ahead = reads.getSingleton('system/resource');
    const caller = new AbortController();
    const queued = reads.list('interface', { signal: caller.signal });
    caller.abort(new Error('shutting down'));
    await expect(queued).rejects.toMatchObject({ code: 'ROS_ERR_ABORTED' });
    expect(typeof (await ahead)).toBe('object');
    // And an abort while in flight stops that read only.
    const inFlight = new AbortController();
    const stopped = reads.getSingleton('system/resource', { signal: inFlight.signal });
    const after = reads.list('interface');
    setImmediate(() => inFlight.abort(new Error('reload')));
    await expect(stopped).rejects.toMatchObject({ code: 'ROS_ERR_ABORTED' });
    expect(Array.isArray(await after)).toBe(true);
  });

  it('reads sharing a signal (a job\'s, kept from run to run) put one listener on it, and its abort stops every one of them', async () => {
    emulator.router('q').setFaults({ path: 'system/resource', latencyMs: 300 });
    const reads = client(3_000);
    const job = new AbortController();
    // Answered ones first: a finished read leaves nothing that would fire later.
    expect(Array.isArray(await reads.list('interface', { signal: job.signal }))).toBe(true);
    const pending = [reads.getSingleton('system/resource', { signal: job.signal }), reads.list('interface', { signal: job.signal }), reads.list('ip/address', { signal: job.signal })];
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(1);
    setImmediate(() => job.abort(new Error('job stopped')));
    // Awaited together: each rejects on its own, before the one ahead of it would be awaited.
    await Promise.all(pending.map((read) => expect(read).rejects.toMatchObject({ code: 'ROS_ERR_ABORTED' })));
    // The client still reads for others.
    expect(Array.isArray(await reads.list('interface'))).toBe(true);
  });
});
