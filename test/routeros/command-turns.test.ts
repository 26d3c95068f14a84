/**
 * A router's console commands (ping, bandwidth-test) go over up to `connections` connections of their own, taken in
 * turn as its reads take theirs: over real HTTPS against the emulator, the commands beyond them wait and go once one
 * is free, a command whose timeout runs out while it waits says it was never sent, and what a router that runs
 * commands keeps for them is a connection, not a preallocated queue (undici's Pool: ~18 KiB per router).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { heapAfterCollection } from '../helpers/gc.js';

let emulator: Emulator;
const opened: RouterOsClient[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'c' }] });
});

afterEach(async () => {
  emulator.router('c').clearFaults();
  await Promise.all(opened.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await emulator.close();
});

function client(connections?: number): RouterOsClient {
  const router = emulator.router('c');
  const made = new RouterOsClient({
    url: router.url,
    username: 'admin',
    password: new Secret(''),
    timeoutMs: 5_000,
    tls: { ca: emulator.ca },
    ...(connections === undefined ? {} : { connections }),
  });
  opened.push(made);
  return made;
}

const ping = (commands: RouterOsClient, timeoutMs?: number): Promise<unknown> =>
  commands.run('ping', { address: '192.0.2.1', count: '1', interval: '10ms' }, timeoutMs === undefined ? {} : { timeoutMs });

/** What the router counted since `before`. */
function since(before: { connections: number; requests: number }): { connections: number; requests: number } {
  const now = emulator.router('c').stats;
  return { connections: now.connections - before.connections, requests: now.requests - before.requests };
}

describe("a router's command connections", () => {
  it.each([1, 2, 3])('with %i of them, five commands at once open that many and each is answered', async (connections) => {
    const router = emulator.router('c');
    router.setFaults({ path: 'ping', latencyMs: 150 });
    const commands = client(connections);
    const before = { ...router.stats };
    const answers = await Promise.all(Array.from({ length: 5 }, () => ping(commands)));
    expect(answers.every((answer) => Array.isArray(answer))).toBe(true);
    expect(since(before)).toEqual({ connections, requests: 5 });
    // Kept: the next commands reuse them.
    await Promise.all(Array.from({ length: connections }, () => ping(commands)));
    expect(since(before)).toEqual({ connections, requests: 5 + connections });
  });

  it('a command whose timeout runs out while it waits for a connection says it was never sent, and is not', async () => {
    const router = emulator.router('c');
    router.setFaults({ path: 'ping', latencyMs: 500 });
    const commands = client(2);
    const before = { ...router.stats };
    const ahead = [ping(commands), ping(commands)];
    const queued = ping(commands, 150);
    await expect(queued).rejects.toMatchObject({
      code: 'ROS_ERR_TIMEOUT',
      message: expect.stringMatching(/not sent: still waiting for one of the router's command connections behind its other commands/) as unknown,
    });
    expect((await Promise.all(ahead)).every((answer) => Array.isArray(answer))).toBe(true);
    expect(since(before)).toEqual({ connections: 2, requests: 2 });
  });

  it('a command aborted while it waits leaves the ones in flight alone, and the next one goes', async () => {
    const router = emulator.router('c');
    router.setFaults({ path: 'ping', latencyMs: 300 });
    const commands = client(1);
    const ahead = ping(commands);
    const caller = new AbortController();
    const queued = commands.run('ping', { address: '192.0.2.1', count: '1', interval: '10ms' }, { signal: caller.signal });
    caller.abort(new Error('shutting down'));
    await expect(queued).rejects.toMatchObject({ code: 'ROS_ERR_ABORTED' });
    expect(Array.isArray(await ahead)).toBe(true);
    expect(Array.isArray(await ping(commands))).toBe(true);
  });

  it('close ends the command in flight and the one waiting at once, not at their timeouts', async () => {
    const router = emulator.router('c');
    router.setFaults({ path: 'ping', hang: true });
    const commands = client(1);
    const before = router.stats.requests;
    const inFlight = ping(commands, 20_000);
    const waiting = ping(commands, 20_000);
    await expect.poll(() => router.stats.requests).toBe(before + 1);
    const started = performance.now();
    await commands.close();
    // As closed here, not as a router that cannot be reached ("is www-ssl enabled and reachable?").
    const closedHere = { code: 'ROS_ERR_ABORTED', message: expect.stringContaining("the router's client was closed") as unknown };
    await expect(inFlight).rejects.toMatchObject(closedHere);
    await expect(waiting).rejects.toMatchObject(closedHere);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('refuse a count of connections that is not a whole number of at least one, when made', () => {
    for (const connections of [0, -1, 1.5, Number.NaN]) expect(() => client(connections)).toThrow(RangeError);
  });

  it('a command that got no answer ends its connection and gives it back: the next one goes over a new one', async () => {
    const router = emulator.router('c');
    const commands = client(1);
    const before = { ...router.stats };
    router.setFaults({ path: 'ping', hang: true });
    await expect(ping(commands, 200)).rejects.toMatchObject({ code: 'ROS_ERR_TIMEOUT' });
    router.clearFaults();
    expect(Array.isArray(await ping(commands))).toBe(true);
    expect(since(before)).toEqual({ connections: 2, requests: 2 });
  });

  it('cost a router that runs commands a connection, not a preallocated queue', async () => {
    // Routers' clients that have read (their read connection kept), then each runs a command: what the heap keeps
    // beyond what it kept before is the command connection: a Client and its TLS socket, with the emulator's end
    // of it in this process, ~15 KiB measured; an undici Pool with its 2,048-slot queue made it ~35 KiB.
    const count = 150;
    const routers = Array.from({ length: count }, () => client());
    // What the first costs once (code compiled, the TLS context, the session cache) is paid before measuring.
    const warm = client();
    await warm.getSingleton('system/resource');
    await ping(warm);
    for (const router of routers) await router.getSingleton('system/resource');
    const beforeCommands = heapAfterCollection();
    for (const router of routers) await ping(router);
    const commandKiB = (heapAfterCollection() - beforeCommands) / count / 1024;
    expect(commandKiB, `a router's command connection kept ${commandKiB.toFixed(1)} KiB`).toBeLessThan(25);
  });
});
