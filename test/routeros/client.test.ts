/**
 * The REST client against the real emulator over HTTPS: the generic surface of the spec, and every error
 * reason produced by a real failure (no mocks at this layer).
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { RouterOsClientOptions } from '../../src/routeros/client.js';
import { TestRestClient } from '../helpers/rest-client.js';
import { RouterOsError, type ErrorReason } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';

const PASSWORD = 'correct horse battery staple';
let emulator: Emulator;
const clients: TestRestClient[] = [];

beforeAll(async () => {
  emulator = await startEmulator({
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      {
        name: 'r1',
        interfaces: [{ name: 'wg0' }, { name: 'wg branch/1' }],
        peers: [
          { interface: 'wg0', name: 'alpha', allowedAddress: ['10.0.0.2/32'], life: 'live' },
          { interface: 'wg0', name: 'beta', allowedAddress: ['10.0.0.3/32'], life: 'never' },
          { interface: 'wg branch/1', name: 'gamma', allowedAddress: ['10.1.0.2/32'], life: 'live' },
        ],
        addresses: [{ address: '10.0.0.1/24', interface: 'wg0' }],
        ping: { '10.0.0.2': { kind: 'reachable', rttMs: 2 } },
      },
      { name: 'old', version: '7.0', missingMenus: ['interface/wireguard'] },
    ],
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await emulator.close();
});

function client(options: Partial<RouterOsClientOptions> & { router?: string } = {}): TestRestClient {
  const { router = 'r1', ...rest } = options;
  const made = new TestRestClient({
    url: emulator.router(router).url,
    username: 'monitor',
    password: new Secret(PASSWORD),
    timeoutMs: 5_000,
    tls: { ca: emulator.ca },
    ...rest,
  });
  clients.push(made);
  return made;
}

async function failure(promise: Promise<unknown>): Promise<RouterOsError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RouterOsError);
    const text = `${String(error)} ${inspect(error, { depth: 5 })} ${JSON.stringify(error)}`;
    // No error, however deep, carries the password or the Authorization header.
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(Buffer.from(`monitor:${PASSWORD}`).toString('base64'));
    return error as RouterOsError;
  }
  throw new Error('expected a failure');
}

describe('generic surface', () => {
  it('lists a menu with conditions and .proplist', async () => {
    const peers = await client().list('interface/wireguard/peers', { where: { interface: 'wg0' }, proplist: ['name', 'rx'] });
    expect(peers.map((peer) => peer['name'])).toEqual(['alpha', 'beta']);
    expect(Object.keys(peers[0] ?? {}).sort()).toEqual(['name', 'rx']);
  });

  it('reads a singleton menu as one record', async () => {
    const resource = await client().getSingleton('system/resource');
    expect(resource['board-name']).toBeTruthy();
    expect(resource['uptime']).toMatch(/^(\d+[wdhms])+$/);
  });

  it('gets one record by .id and by a name that needs URL encoding', async () => {
    const c = client();
    const [first] = await c.list('interface/wireguard', { proplist: ['.id', 'name'] });
    expect(first?.['.id']).toMatch(/^\*[0-9A-F]+$/);
    expect((await c.get('interface/wireguard', first?.['.id'] ?? ''))['name']).toBe(first?.['name']);
    expect((await c.get('interface/wireguard', 'wg branch/1'))['name']).toBe('wg branch/1');
  });

  it('creates, updates and removes a record, and a second removal is a 404 with the router body', async () => {
    const c = client();
    const created = await c.create('ip/address', { address: '10.9.9.1', interface: 'wg0' });
    expect(created['address']).toBe('10.9.9.1/32');
    const id = created['.id'] ?? '';
    expect((await c.update('ip/address', id, { comment: 'test' }))['comment']).toBe('test');
    await c.remove('ip/address', id);
    const error = await failure(c.remove('ip/address', id));
    expect(error.reason).toBe('http_4xx');
    expect(error.code).toBe('ROS_ERR_NOT_FOUND');
    expect(error.body).toEqual({ error: 404, message: 'Not Found' });
  });

  it('runs a command (ping, bounded by count) and print with .proplist and .query', async () => {
    const c = client();
    const rows = (await c.run('ping', { address: '10.0.0.2', count: '2', interval: '10ms' })) as Record<string, string>[];
    expect(rows).toHaveLength(2);
    expect(rows.at(-1)?.['received']).toBe('2');
    const either = await c.print('interface/wireguard/peers', { proplist: ['name'], query: ['name=alpha', 'name=gamma', '#|'] });
    expect(either.map((peer) => peer['name']).sort()).toEqual(['alpha', 'gamma']);
  });
});

describe('every error reason, from a real failure', () => {
  const cases: [string, ErrorReason, () => Promise<RouterOsError>][] = [
    ['a request that hangs past the timeout', 'timeout', async () => {
      emulator.router('r1').setFaults({ path: 'system/resource', hang: true });
      try {
        return await failure(client({ timeoutMs: 300 }).getSingleton('system/resource'));
      } finally {
        emulator.router('r1').clearFaults();
      }
    }],
    ['a slow body past the timeout', 'timeout', async () => {
      emulator.router('r1').setFaults({ path: 'system/resource', slowBodyMs: 2_000 });
      try {
        return await failure(client({ timeoutMs: 300 }).getSingleton('system/resource'));
      } finally {
        emulator.router('r1').clearFaults();
      }
    }],
    ['connection refused', 'connect', async () => {
      const router = emulator.router('old');
      await router.stop();
      try {
        return await failure(client({ router: 'old' }).getSingleton('system/resource'));
      } finally {
        await router.start();
      }
    }],
    ['a host name that does not resolve', 'connect', () =>
      failure(client({ url: 'https://router.invalid:8443' }).getSingleton('system/resource'))],
    ['an untrusted self-signed certificate', 'tls', () => failure(client({ tls: {} }).getSingleton('system/resource'))],
    ['a certificate for another name', 'tls', () =>
      failure(client({ tls: { ca: emulator.ca, serverName: 'router.example' } }).getSingleton('system/resource'))],
    ['a wrong password (401)', 'auth', () =>
      failure(client({ password: new Secret('wrong') }).getSingleton('system/resource'))],
    ['a forced 403', 'auth', () => withFault({ status: { 'system/resource': 403 } })],
    ['a 404 on a missing id', 'http_4xx', () => failure(client().get('ip/address', '*FFFF'))],
    ['a forced 400', 'http_4xx', () => withFault({ status: { 'system/resource': { code: 400, detail: 'unknown parameter x' } } })],
    ['a forced 500', 'http_5xx', () => withFault({ status: { 'system/resource': 500 } })],
    ['a forced 503', 'http_5xx', () => withFault({ status: { 'system/resource': 503 } })],
    ['broken JSON', 'parse', () => withFault({ brokenJson: true })],
    ['a truncated body', 'parse', () => withFault({ truncated: true })],
    ['an HTML page', 'parse', () => withFault({ html: true })],
    ['JSON of the wrong shape', 'parse', () =>
      withFault({ wrongShape: true }, (c) => c.list('interface/wireguard/peers'))],
    ['a body over the size cap', 'parse', () =>
      withFault({ oversizedBytes: 2 * 1024 * 1024 }, (c) => c.list('interface/wireguard/peers'), { maxResponseBytes: 1024 * 1024 })],
    ['a flood of empty records', 'parse', () =>
      withFault({ valueFloodBytes: 1024 * 1024 }, (c) => c.list('interface/wireguard/peers'))],
    ['a router without the wireguard menu (400 no such command)', 'unsupported', () =>
      failure(client({ router: 'old' }).list('interface/wireguard'))],
    ['a command the menu does not have (406)', 'unsupported', () => failure(client().remove('interface', 'ether1'))],
  ];

  async function withFault(
    faults: object,
    call: (c: TestRestClient) => Promise<unknown> = (c) => c.getSingleton('system/resource'),
    options: Partial<RouterOsClientOptions> = {},
  ): Promise<RouterOsError> {
    emulator.router('r1').setFaults(faults);
    try {
      return await failure(call(client(options)));
    } finally {
      emulator.router('r1').clearFaults();
    }
  }

  it.each(cases)('%s → %s', async (_name, reason, run) => {
    const error = await run();
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/rest\//);
  });

  it('keeps the router error body and status on the error', async () => {
    const error = await failure(client({ router: 'old' }).list('interface/wireguard'));
    expect(error.status).toBe(400);
    expect(error.body?.detail).toMatch(/no such command or directory/);
  });

  it('repairs raw control characters and invalid UTF-8 instead of failing', async () => {
    emulator.router('r1').setFaults([{ controlChars: true }, { invalidUtf8: true }]);
    try {
      const peers = await client().list('interface/wireguard/peers');
      expect(peers.length).toBeGreaterThan(0);
    } finally {
      emulator.router('r1').clearFaults();
    }
  });
});
