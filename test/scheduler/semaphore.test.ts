/**
 * The cap on runs in flight has two lanes: configured routers' runs (high) are granted before discovered
 * targets' (low), FIFO within a lane. A burst of discovered runs at targets that never answer once kept a
 * configured router's 15 s job waiting for 2.5 minutes behind them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { Semaphore, type Lane } from '../../src/scheduler/semaphore.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { testConfig } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

/** Settles every promise reaction already queued: a turn of the event loop, not a timed wait. */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore lanes', () => {
  it('grants in the order of a two-queue model: every high waiter before any low one, FIFO within a lane (property)', async () => {
    const op = fc.oneof(fc.constant<'release'>('release'), fc.constantFrom<Lane>('high', 'low'));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), async (permits, ops) => {
        const semaphore = new Semaphore(permits);
        const granted: number[] = [];
        const expected: number[] = [];
        const model = { available: permits, held: 0, high: [] as number[], low: [] as number[] };
        for (const [id, step] of ops.entries()) {
          if (step === 'release') {
            // Only what is held is released, as the runner does.
            if (model.held === 0) continue;
            semaphore.release();
            model.held -= 1;
            const next = model.high.shift() ?? model.low.shift();
            if (next === undefined) model.available += 1;
            else {
              expected.push(next);
              model.held += 1;
            }
            continue;
          }
          void semaphore.acquire(undefined, step).then(() => granted.push(id));
          if (model.available > 0) {
            model.available -= 1;
            model.held += 1;
            expected.push(id);
          } else model[step].push(id);
        }
        await drain();
        expect(granted).toEqual(expected);
        expect(semaphore.waiting).toBe(model.high.length + model.low.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the scheduler puts discovered targets in the low lane', () => {
  it('a configured router waiting behind hanging discovered runs gets the next permit', async () => {
    const only = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));
    const discovered = ['d1', 'd2', 'd3', 'd4'];
    const names = [...discovered, 'hq'];
    const clients = new Map(names.map((name) => [name, new FakeClient()]));
    // Every run hangs, so whoever takes the permit keeps it and the order of grants shows.
    for (const client of clients.values()) client.behaviour = 'hang';
    const scheduler = new Scheduler({
      store: new SnapshotStore(),
      logger: pino({ level: 'silent' }),
      clientFor: (router) => clients.get(router.name)!,
      triggerFactory: new ManualTriggers().factory,
      jitter: false,
      maxInFlight: 1,
    });
    const config = testConfig({
      defaults: { username: 'u', password: 'p', collectors: only },
      routers: names.map((name, i) => ({ name, url: `https://192.0.2.${i + 1}` })),
    });
    scheduler.load(config, new Set(discovered));
    const calls = (): number => [...clients.values()].reduce((sum, client) => sum + client.calls, 0);
    const pending = scheduler.runAllOnce();
    // d1 holds the one permit; d2…d4 queued before hq.
    await expect.poll(calls).toBe(1);
    expect(clients.get('d1')!.calls).toBe(1);
    clients.get('d1')!.releaseAll();
    await expect.poll(calls).toBe(2);
    expect(clients.get('hq')!.calls).toBe(1);
    expect(clients.get('d2')!.calls).toBe(0);
    for (const client of clients.values()) client.behaviour = 'ok';
    for (const client of clients.values()) client.releaseAll();
    await pending;
    await scheduler.stop();
  });
});

describe('a waiter whose signal is already aborted', () => {
  it('is refused at once and never queued: it would be counted and granted a permit nobody releases (found by review)', async () => {
    const semaphore = new Semaphore(1);
    expect(semaphore.tryAcquire()).toBe(true);
    const controller = new AbortController();
    controller.abort(new Error('the run was replaced'));
    await expect(semaphore.acquire(controller.signal)).rejects.toThrow('the run was replaced');
    expect(semaphore.waiting).toBe(0);
    // The permit goes back to the cap, not to the dead waiter.
    semaphore.release();
    expect(semaphore.tryAcquire()).toBe(true);
  });
});
