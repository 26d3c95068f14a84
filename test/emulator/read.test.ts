/** Conformance of reads: list/one/conditions/proplist, encodings, singletons, version-gated keys. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client } from './helpers.js';
import { seedRouter } from './fixtures.js';

let emu: Emulator;
let client: Client;

beforeAll(async () => {
  emu = await startEmulator({
    routers: [
      seedRouter('new', '7.19.4'),
      seedRouter('mid', '7.16'),
      seedRouter('old', '7.12.1'),
      seedRouter('ancient', '7.10', { board: { nand: true } }),
      seedRouter('next', '7.24', { missingMenus: ['interface/wireguard'] }),
    ],
  });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

describe('GET list and one', () => {
  it('answers a JSON array of records with string values and alphabetically sorted keys', async () => {
    const a = await client.get('new', '/rest/interface/wireguard');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/json');
    const rows = asRows(a.json);
    expect(rows.map((r) => r['name'])).toEqual(['wg0', 'wg1']);
    for (const row of rows) {
      expect(Object.values(row).every((v) => typeof v === 'string')).toBe(true);
      expect(Object.keys(row)).toEqual([...Object.keys(row)].sort());
    }
    expect(a.text).not.toMatch(/\s/); // compact
  });

  it('filters with prop=value conditions, ANDed', async () => {
    const one = asRows((await client.get('new', '/rest/interface/wireguard?listen-port=51820')).json);
    expect(one.map((r) => r['name'])).toEqual(['wg1']);
    const none = asRows((await client.get('new', '/rest/interface/wireguard?listen-port=51820&name=wg0')).json);
    expect(none).toEqual([]);
    const bools = asRows((await client.get('new', '/rest/interface/wireguard?disabled=no')).json);
    expect(bools).toHaveLength(2);
  });

  it('decodes query values with percent-decoding only: a literal + stays + (base64 keys)', async () => {
    const key = 'oVtE3cR+hRVZVxrTpSJ7C9jgXkMdJ/ImU3Zqn7WuxkU=';
    const literal = asRows((await client.get('new', `/rest/interface/wireguard/peers?public-key=${key}`)).json);
    const encoded = asRows((await client.get('new', `/rest/interface/wireguard/peers?public-key=${encodeURIComponent(key)}`)).json);
    expect(literal.map((p) => p['name'])).toEqual(['beta']);
    expect(encoded).toEqual(literal);
  });

  it('limits keys with .proplist and ignores unknown names', async () => {
    const rows = asRows((await client.get('new', '/rest/interface/wireguard/peers?.proplist=public-key,rx,nonexistent')).json);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['public-key', 'rx']);
  });

  it('gets one record by .id and by name, also URL-encoded', async () => {
    const list = asRows((await client.get('new', '/rest/interface/wireguard')).json);
    const id = list[1]?.['.id'] ?? '';
    expect(id).toMatch(/^\*[0-9A-F]+$/);
    const byId = asRec((await client.get('new', `/rest/interface/wireguard/${id}`)).json);
    expect(byId['name']).toBe('wg1');
    // encodeURIComponent leaves '*' alone; clients that escape it send %2A.
    const encoded = asRec((await client.get('new', `/rest/interface/wireguard/%2A${id.slice(1)}`)).json);
    expect(encoded).toEqual(byId);
    const lower = asRec((await client.get('new', `/rest/interface/wireguard/%2a${id.slice(1).toLowerCase()}`)).json);
    expect(lower).toEqual(byId);
    const byName = asRec((await client.get('new', '/rest/interface/wireguard/wg1')).json);
    expect(byName['.id']).toBe(id);
    const peer = asRec((await client.get('new', '/rest/interface/wireguard/peers/alpha')).json);
    expect(peer['comment']).toBe('alpha "site"');
  });

  it('finds names that need URL-encoding', async () => {
    const put = await client.call('new', 'PUT', '/rest/interface/wireguard', { name: 'wg lab/ü' });
    expect(put.status).toBe(201);
    const got = await client.get('new', `/rest/interface/wireguard/${encodeURIComponent('wg lab/ü')}`);
    expect(asRec(got.json)['name']).toBe('wg lab/ü');
  });

  it('answers 404 without detail for an unknown id, and for an unknown name in a named menu', async () => {
    const a = await client.get('new', '/rest/ip/address/*FFFF');
    expect(a.status).toBe(404);
    expect(a.text).toBe('{"error":404,"message":"Not Found"}');
    expect((await client.get('new', '/rest/interface/wireguard/nope')).status).toBe(404);
  });
});

describe('singletons', () => {
  it('system/resource is a bare object with the real 7.x fields', async () => {
    const r = asRec((await client.get('new', '/rest/system/resource')).json);
    for (const key of ['architecture-name', 'board-name', 'build-time', 'cpu', 'cpu-count', 'cpu-frequency', 'cpu-load', 'factory-software', 'free-hdd-space', 'free-memory', 'platform', 'total-hdd-space', 'total-memory', 'uptime', 'version', 'write-sect-since-reboot', 'write-sect-total']) {
      expect(r, key).toHaveProperty(key);
    }
    expect(r['version']).toBe('7.19.4 (stable)');
    expect(r['uptime']).toMatch(/^(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/);
    expect(r['build-time']).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(r).not.toHaveProperty('bad-blocks');
    expect(Number(r['cpu-load'])).toBeGreaterThanOrEqual(0);
    expect(Number(r['cpu-load'])).toBeLessThanOrEqual(100);
  });

  it('build-time is Mon/DD/YYYY up to 7.10; NAND boards have bad-blocks; 7.24 says minimum-version', async () => {
    const ancient = asRec((await client.get('ancient', '/rest/system/resource')).json);
    expect(ancient['build-time']).toMatch(/^[A-Z][a-z]{2}\/\d\d\/\d{4} \d\d:\d\d:\d\d$/);
    expect(ancient['bad-blocks']).toBe('0');
    const next = asRec((await client.get('next', '/rest/system/resource')).json);
    expect(next).toHaveProperty('minimum-version');
    expect(next).not.toHaveProperty('factory-software');
  });

  it('system/identity is a bare object and honours .proplist', async () => {
    expect((await client.get('mid', '/rest/system/identity')).json).toEqual({ name: 'mid' });
    expect((await client.get('mid', '/rest/system/resource?.proplist=uptime')).json).toEqual({
      uptime: expect.any(String) as unknown,
    });
  });
});

describe('version-gated peer keys (real-formats §3.2)', () => {
  it('7.19: name and responder, client-* keys; no is-responder', async () => {
    const p = asRows((await client.get('new', '/rest/interface/wireguard/peers')).json)[0] ?? {};
    expect(p['name']).toBe('alpha');
    expect(p['client-endpoint']).toBe('');
    expect(p['private-key']).toBe('');
    expect(p).not.toHaveProperty('is-responder');
    expect(p).not.toHaveProperty('client-allowed-address');
  });

  it('7.16 accepts is-responder and refuses responder; 7.19 the reverse', async () => {
    const mid = await client.call('mid', 'PATCH', '/rest/interface/wireguard/peers/beta', { 'is-responder': 'yes' });
    expect(mid.status).toBe(200);
    expect(asRec(mid.json)['is-responder']).toBe('true');
    const refused = await client.call('mid', 'PATCH', '/rest/interface/wireguard/peers/beta', { responder: 'yes' });
    expect(refused.json).toEqual({ detail: 'unknown parameter responder', error: 400, message: 'Bad Request' });
    const neu = await client.call('new', 'PATCH', '/rest/interface/wireguard/peers/beta', { responder: true });
    expect(asRec(neu.json)['responder']).toBe('true');
    expect((await client.call('new', 'PATCH', '/rest/interface/wireguard/peers/beta', { 'is-responder': true })).status).toBe(400);
  });

  it('7.12: no name (peers not addressable by name), but client-endpoint and private-key', async () => {
    const rows = asRows((await client.get('old', '/rest/interface/wireguard/peers')).json);
    expect(rows[0]).not.toHaveProperty('name');
    expect(rows[0]).toHaveProperty('client-endpoint', '');
    expect((await client.get('old', '/rest/interface/wireguard/peers/alpha')).status).toBe(400);
  });

  it('7.10: none of the 7.12+ keys', async () => {
    const p = asRows((await client.get('ancient', '/rest/interface/wireguard/peers')).json)[0] ?? {};
    expect(p).not.toHaveProperty('client-endpoint');
    expect(p).not.toHaveProperty('private-key');
    expect(p).toHaveProperty('preshared-key', '');
  });

  it('7.24 (≥7.21): client-allowed-address defaults to ::/0', async () => {
    const emu2 = await startEmulator({ routers: [seedRouter('v21', '7.21')] });
    const c = new Client(emu2);
    try {
      const p = asRows((await c.get('v21', '/rest/interface/wireguard/peers')).json)[0] ?? {};
      expect(p['client-allowed-address']).toBe('::/0');
    } finally {
      await c.close();
      await emu2.close();
    }
  });
});

describe('peer wire format', () => {
  it('keepalive as 25s, absent when 0; current endpoint ""/"0" before any handshake; rx/tx decimal', async () => {
    const [alpha, beta] = asRows((await client.get('new', '/rest/interface/wireguard/peers')).json);
    expect(alpha?.['persistent-keepalive']).toBe('25s');
    expect(beta).not.toHaveProperty('persistent-keepalive');
    expect(beta).not.toHaveProperty('last-handshake');
    expect(beta?.['current-endpoint-address']).toBe('');
    expect(beta?.['current-endpoint-port']).toBe('0');
    expect(alpha?.['current-endpoint-address']).toBe('198.51.100.7');
    expect(alpha?.['rx']).toMatch(/^\d+$/);
    expect(beta).not.toHaveProperty('comment');
    expect(alpha?.['allowed-address']).toBe('10.0.0.2/32,192.168.50.0/24');
  });
});

describe('paths that do not exist', () => {
  it('unknown menu → 400 naming the word', async () => {
    const a = await client.get('new', '/rest/ip/adress');
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ detail: 'no such command or directory (adress)', error: 400, message: 'Bad Request' });
  });

  it('a missing menu answers like a router without it', async () => {
    const a = await client.get('next', '/rest/interface/wireguard');
    expect(a.json).toEqual({ detail: 'no such command or directory (wireguard)', error: 400, message: 'Bad Request' });
    expect((await client.get('next', '/rest/interface/wireguard/peers')).status).toBe(400);
    expect((await client.get('next', '/rest/ip/address')).status).toBe(200);
  });

  it('GET on a command path → 400 no such command', async () => {
    const a = await client.get('new', '/rest/ip/address/print');
    expect(a.json).toEqual({ detail: 'no such command or directory (print)', error: 400, message: 'Bad Request' });
  });

  it('outside /rest the router answers HTML: WebFig at / (no auth), 404 elsewhere', async () => {
    const root = await client.call('new', 'GET', '/', undefined, { auth: false });
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/text\/html/);
    expect(root.text).toMatch(/<html/);
    const other = await client.call('new', 'GET', '/api/system/resource');
    expect(other.status).toBe(404);
    expect(other.text).toMatch(/^<!DOCTYPE html>/);
  });

  it('HEAD is not implemented (501)', async () => {
    const a = await client.call('new', 'HEAD', '/rest/system/resource');
    expect(a.status).toBe(501);
  });
});
