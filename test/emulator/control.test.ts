/** The HTTP control endpoint for out-of-process use (only with `control: true`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, Client } from './helpers.js';

let emu: Emulator;
let plain: Emulator;
let client: Client;

beforeAll(async () => {
  [emu, plain] = await Promise.all([
    startEmulator({ control: true, routers: [{ name: 'c', uptimeSeconds: 5000 }, { name: 'other' }] }),
    startEmulator({ routers: [{ name: 'p' }] }),
  ]);
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await Promise.all([emu.close(), plain.close()]);
});

describe('control endpoint', () => {
  it('POST /emulator/faults sets faults on that router only; GET shows them; DELETE clears them', async () => {
    const set = await client.post('c', '/emulator/faults', { path: '/system/identity', status: { '/system': 503 } });
    expect(set.status).toBe(204);
    expect((await client.get('c', '/rest/system/identity')).status).toBe(503);
    expect((await client.get('other', '/rest/system/identity')).status).toBe(200);
    expect((await client.get('c', '/emulator/faults')).json).toEqual([{ path: '/system/identity', status: { '/system': 503 } }]);
    expect((await client.call('c', 'DELETE', '/emulator/faults')).status).toBe(204);
    expect((await client.get('c', '/rest/system/identity')).status).toBe(200);
  });

  it('accepts a list of fault sets and is itself never affected by faults', async () => {
    expect((await client.post('c', '/emulator/faults', [{ hang: true }, { path: '/ip', html: true }, { path: '/system', closeKept: true }])).status).toBe(204);
    expect((await client.call('c', 'DELETE', '/emulator/faults')).status).toBe(204);
    expect((await client.get('c', '/rest/system/identity')).status).toBe(200);
  });

  it('refuses bodies that are not Faults', async () => {
    const a = await client.post('c', '/emulator/faults', { latencyMs: 'slow' });
    expect(a.status).toBe(400);
    expect((await client.post('c', '/emulator/faults', { teleport: true })).status).toBe(400);
    expect((await client.call('c', 'POST', '/emulator/faults', undefined, { raw: 'nope' })).status).toBe(400);
  });

  it('POST /emulator/reboot reboots the router (optionally with the post-boot race)', async () => {
    expect((await client.post('c', '/emulator/reboot', { raceMs: 'long' })).status).toBe(400);
    expect((await client.post('c', '/emulator/reboot', { raceMs: 60_000 })).status).toBe(204);
    expect((await client.get('c', '/rest/system/resource')).status).toBe(401);
    expect((await client.post('c', '/emulator/reboot')).status).toBe(204);
    expect(asRec((await client.get('c', '/rest/system/resource')).json)['uptime']).toMatch(/^\d+s$/);
  });

  it.each([
    ['/emulator/reboot', { raceMs: 1e12 }, 'raceMs'],
    ['/emulator/reboot', { raceMs: -1 }, 'raceMs'],
    ['/emulator/faults', { latencyMs: 1e12 }, 'latencyMs'],
    ['/emulator/faults', { slowBodyMs: 600_001 }, 'slowBodyMs'],
    ['/emulator/faults', { oversizedBytes: 1e12 }, 'oversizedBytes'],
    ['/emulator/faults', { valueFloodBytes: 1e12 }, 'valueFloodBytes'],
  ])('refuses absurd numbers: POST %s %j answers 400 with the reason', async (path, body, field) => {
    const answer = await client.post('c', path, body);
    expect(answer.status).toBe(400);
    const error = String(asRec(answer.json)['error']);
    expect(error).toContain(field);
    expect(error).toMatch(/at most|too small|>=0/i);
    expect((await client.get('c', '/emulator/faults')).json).toEqual([]);
  });

  it('refuses more than 100 fault sets, and accepts the largest numbers allowed', async () => {
    const many = Array.from({ length: 101 }, () => ({ path: '/nowhere' }));
    const refused = await client.post('c', '/emulator/faults', many);
    expect(refused.status).toBe(400);
    expect(String(asRec(refused.json)['error'])).toContain('at most 100 fault sets');
    const largest = { path: '/nowhere', latencyMs: 600_000, slowBodyMs: 600_000, oversizedBytes: 256 * 1024 * 1024, valueFloodBytes: 256 * 1024 * 1024 };
    expect((await client.post('c', '/emulator/faults', largest)).status).toBe(204);
    expect((await client.call('c', 'DELETE', '/emulator/faults')).status).toBe(204);
  });

  it('needs the router credentials', async () => {
    expect((await client.call('c', 'POST', '/emulator/reboot', undefined, { auth: false })).status).toBe(401);
  });

  it('is absent unless enabled: HTML 404 like any non-REST path', async () => {
    const c = new Client(plain);
    const a = await c.post('p', '/emulator/faults', { hang: true });
    expect(a.status).toBe(404);
    expect(a.headers.get('content-type')).toMatch(/text\/html/);
    expect((await c.get('p', '/rest/system/identity')).status).toBe(200);
    await c.close();
  });
});
