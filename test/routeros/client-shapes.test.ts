/**
 * What every router's client keeps for good shares its V8 hidden classes with every other router's. On Node 20 an
 * object spread and then given more fields gets a map of its own: three per router (request headers, dispatcher
 * options) were 6,000 maps and their descriptor arrays at 2,000 routers. The headers are what a test can reach
 * (the dispatchers' options go into undici); the first few clients still share a map (V8 caches a spread's
 * result for a while), so the test makes forty.
 */
import { setFlagsFromString } from 'node:v8';
import { Client, type Dispatcher } from 'undici';
import { afterEach, expect, it, vi } from 'vitest';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';

setFlagsFromString('--allow-natives-syntax');
// Parsed after the flag is set; V8's own answer to whether two objects have one hidden class.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

afterEach(() => {
  vi.restoreAllMocks();
});

/** The headers each router's client sends with a read and with a command; the requests fail without a connection. */
async function headersOf(names: string[]): Promise<{ read: object; command: object }[]> {
  const sent: { dispatcher: string; headers: object }[] = [];
  // Reads and commands each go over connections of their own, undici Clients both: told apart by their verb.
  const capture = function (this: unknown, options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    sent.push({ dispatcher: options.method === 'GET' ? 'read' : 'command', headers: options.headers as object });
    handler.onResponseError?.(undefined as never, new Error('no connection in this test'));
    return false;
  };
  vi.spyOn(Client.prototype, 'dispatch').mockImplementation(capture as never);
  const result: { read: object; command: object }[] = [];
  for (const [index, name] of names.entries()) {
    const client = new RouterOsClient({ url: `https://192.0.2.${index + 1}`, username: name, password: new Secret(`secret-${name}`), timeoutMs: 1_000 });
    await client.list('system/resource').catch(() => undefined);
    await client.run('ping', { address: '192.0.2.9', count: 1 }).catch(() => undefined);
    await client.close();
    const read = sent.find((entry) => entry.dispatcher === 'read');
    const command = sent.find((entry) => entry.dispatcher === 'command');
    expect(read).toBeDefined();
    expect(command).toBeDefined();
    result.push({ read: read?.headers as object, command: command?.headers as object });
    sent.length = 0;
  }
  return result;
}

it("gives every router's read and command headers the hidden classes of every other router's", async () => {
  const [first, ...others] = await headersOf(Array.from({ length: 40 }, (_, index) => `r${index}`));
  expect(first).toBeDefined();
  expect(first?.command).toHaveProperty('content-type', 'application/json');
  for (const other of others) {
    expect(haveSameMap(first?.read as object, other.read)).toBe(true);
    expect(haveSameMap(first?.command as object, other.command)).toBe(true);
  }
});
