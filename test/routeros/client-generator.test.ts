/**
 * A router's client under whatever the router does, by generator: waves of reads and commands sent together, each
 * with its own timeout and some aborted by their caller, against a router whose faults change between waves (it
 * hangs, drops kept connections, cuts or drips replies, answers errors that echo the Authorization header), and a
 * client sometimes closed mid-wave. Over real HTTPS against the emulator. Whatever the mix: every request settles
 * by its own timeout (or its abort, or the close), every failure is a RouterOsError that carries no secret, and a
 * client not closed reads and runs commands again once the router behaves: no connection is left lent, no request
 * left waiting (the turns and lanes of src/routeros/turns.ts and lane.ts). A closed client fails at once, as closed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type Faults } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';

const PASSWORD = 'generator-monitor-password';
const AUTHORIZATION = Buffer.from(`monitor:${PASSWORD}`).toString('base64');
/** Past a request's own timeout, how late it may settle on a loaded machine (timers, TLS on a busy core). */
const SLACK_MS = 4_000;

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'g', users: [{ name: 'monitor', password: PASSWORD }] }] });
});

afterAll(async () => {
  await emulator.close();
});

type Operation = { kind: 'read' | 'list' | 'command'; timeoutMs: number; abortAfterMs: number | undefined };
interface Wave {
  faults: Faults;
  operations: Operation[];
  /** Closes the client this long after the wave starts, or at its end if sooner (the run's last wave then). */
  closeAfterMs: number | undefined;
}

const PATHS = [undefined, 'system/resource', 'interface/wireguard', 'ping'] as const;
const FAULTS: Faults[] = [
  {},
  { hang: true },
  { closeKept: true },
  { truncated: true },
  { slowBodyMs: 300 },
  { brokenJson: true },
  { html: true },
  { echoAuthorization: true },
  { latencyMs: 80 },
  { status: { 'system/resource': 500, ping: 400 } },
];

const waves: fc.Arbitrary<Wave[]> = fc.array(
  fc.record({
    faults: fc.tuple(fc.constantFrom(...FAULTS), fc.constantFrom(...PATHS)).map(([faults, path]) => (path === undefined ? faults : { ...faults, path })),
    operations: fc.array(
      fc.record({
        kind: fc.constantFrom<Operation['kind']>('read', 'list', 'command'),
        timeoutMs: fc.integer({ min: 100, max: 600 }),
        abortAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    // One wave in six closes the client: most runs go through several waves and then ask the client again.
    closeAfterMs: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 300 }) }),
  }),
  { minLength: 1, maxLength: 4 },
);

function send(client: RouterOsClient, operation: Operation, signal: AbortSignal): Promise<unknown> {
  const options = { timeoutMs: operation.timeoutMs, signal };
  if (operation.kind === 'read') return client.getSingleton('system/resource', options);
  if (operation.kind === 'list') return client.list('interface/wireguard', options);
  return client.run('ping', { address: '192.0.2.1', count: '1', interval: '10ms' }, options);
}

/** What a failed request must be: a RouterOsError that names no secret. */
function expectCleanFailure(error: unknown, context: string): void {
  expect(error, context).toBeInstanceOf(RouterOsError);
  const text = `${(error as Error).message} ${JSON.stringify(error)} ${String((error as Error).cause ?? '')}`;
  expect(text, context).not.toContain(PASSWORD);
  expect(text, context).not.toContain(AUTHORIZATION);
}

describe("a router's client, whatever the router does (generator)", () => {
  it('settles every request by its timeout, abort or close, fails cleanly, and is never left unable to read or run a command', async () => {
    const router = emulator.router('g');
    // How often each ending was reached: a property whose last checks ran in a handful of runs proves little.
    const endings = { closed: 0, recovered: 0, faultsChanged: 0 };
    await fc.assert(
      fc.asyncProperty(waves, async (plan) => {
        const client = new RouterOsClient({ url: router.url, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 5_000, tls: { ca: emulator.ca } });
        let closed = false;
        try {
          for (const [index, wave] of plan.entries()) {
            router.setFaults(wave.faults);
            if (index > 0) endings.faultsChanged++;
            const context = `wave ${index + 1} of ${JSON.stringify(plan)}`;
            const timers: NodeJS.Timeout[] = [];
            let closing: Promise<void> | undefined;
            let closedAt = Number.POSITIVE_INFINITY;
            if (wave.closeAfterMs !== undefined) {
              timers.push(
                setTimeout(() => {
                  closedAt = performance.now();
                  closing = client.close();
                }, wave.closeAfterMs),
              );
            }
            const settled = await Promise.all(
              wave.operations.map(async (operation) => {
                const caller = new AbortController();
                if (operation.abortAfterMs !== undefined) timers.push(setTimeout(() => caller.abort(new Error('caller gave up')), operation.abortAfterMs));
                const started = performance.now();
                // A request that never settles fails here, with its plan, rather than as the test's timeout.
                let watchdog: NodeJS.Timeout | undefined;
                const unsettled = new Promise<'unsettled'>((resolve) => {
                  watchdog = setTimeout(() => resolve('unsettled'), operation.timeoutMs + 2 * SLACK_MS);
                });
                try {
                  const outcome = await Promise.race([send(client, operation, caller.signal), unsettled]);
                  return { operation, started, ended: outcome === 'unsettled' ? Number.POSITIVE_INFINITY : performance.now(), error: undefined as unknown };
                } catch (error) {
                  return { operation, started, ended: performance.now(), error };
                } finally {
                  clearTimeout(watchdog);
                }
              }),
            );
            for (const timer of timers) clearTimeout(timer);
            // A wave over before its close was due closes now.
            if (wave.closeAfterMs !== undefined && closing === undefined) closing = client.close();
            await closing;
            for (const { operation, started, ended, error } of settled) {
              // By its own timeout, or its abort, or the close, whichever came first.
              const bound = Math.min(operation.timeoutMs, operation.abortAfterMs ?? Number.POSITIVE_INFINITY, closedAt - started);
              expect(ended - started, `${JSON.stringify(operation)}, ${context}`).toBeLessThan(Math.max(0, bound) + SLACK_MS);
              if (error !== undefined) expectCleanFailure(error, `${JSON.stringify(operation)}, ${context}`);
            }
            if (wave.closeAfterMs !== undefined) {
              closed = true;
              break;
            }
          }
          router.clearFaults();
          if (closed) {
            // A closed client opens nothing and says so at once, as closed.
            endings.closed++;
            const connectionsBefore = router.stats.connections;
            for (const kind of ['read', 'command'] as const) {
              await expect(send(client, { kind, timeoutMs: 3_000, abortAfterMs: undefined }, new AbortController().signal)).rejects.toMatchObject({
                code: 'ROS_ERR_ABORTED',
                message: expect.stringContaining("the router's client was closed") as unknown,
              });
            }
            expect(router.stats.connections).toBe(connectionsBefore);
          } else {
            endings.recovered++;
            // Nothing left lent or waiting: the router behaves again, and the client reads and runs commands at once.
            const signal = new AbortController().signal;
            const [read, listed, ran] = await Promise.all([
              send(client, { kind: 'read', timeoutMs: 3_000, abortAfterMs: undefined }, signal),
              send(client, { kind: 'list', timeoutMs: 3_000, abortAfterMs: undefined }, signal),
              send(client, { kind: 'command', timeoutMs: 3_000, abortAfterMs: undefined }, signal),
            ]);
            expect(read).toHaveProperty('uptime');
            expect(listed).toBeInstanceOf(Array);
            expect(ran).toBeInstanceOf(Array);
          }
        } finally {
          router.clearFaults();
          await client.close();
        }
      }),
      { numRuns: 60 },
    );
    expect(endings.closed, JSON.stringify(endings)).toBeGreaterThanOrEqual(3);
    expect(endings.recovered, JSON.stringify(endings)).toBeGreaterThanOrEqual(25);
    expect(endings.faultsChanged, JSON.stringify(endings)).toBeGreaterThanOrEqual(25);
  });
});
