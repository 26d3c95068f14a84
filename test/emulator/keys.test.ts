/** WireGuard key generation: real X25519 pairs, checked with node:crypto by a different route. */
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, Client } from './helpers.js';

let emu: Emulator;
let client: Client;
const R = 'k';

beforeAll(async () => {
  emu = await startEmulator({ routers: [{ name: R }] });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

/**
 * Public key of a base64 private key, derived by Node from the raw key wrapped as PKCS#8. (A JWK import with a
 * stand-in `x` worked until Node 24 began to check that `x` belongs to `d`.)
 */
function publicOf(privateKey: string): string {
  const raw = Buffer.from(privateKey, 'base64');
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), raw]);
  const jwk = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return Buffer.from(jwk.x ?? '', 'base64url').toString('base64');
}

describe('interface key pairs', () => {
  it('PUT with only a name generates a valid pair whose public key matches the private key', async () => {
    const a = await client.call(R, 'PUT', '/rest/interface/wireguard', { name: 'wg9' });
    expect(a.status).toBe(201);
    const rec = asRec(a.json);
    expect(rec).toMatchObject({ name: 'wg9', 'listen-port': '13231', mtu: '1420', disabled: 'false', running: 'true' });
    const priv = rec['private-key'] ?? '';
    const pub = rec['public-key'] ?? '';
    expect(pub).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(pub, 'base64')).toHaveLength(32);
    expect(publicOf(priv)).toBe(pub);
  });

  it('the pair really agrees: ECDH from both sides gives one shared secret', async () => {
    const rec = asRec((await client.get(R, '/rest/interface/wireguard/wg9')).json);
    const peer = generateKeyPairSync('x25519');
    const peerPub = peer.publicKey.export({ format: 'jwk' }).x ?? '';
    const ours = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(rec['public-key'] ?? '', 'base64').toString('base64url') }, format: 'jwk' });
    const fromPeer = diffieHellman({ privateKey: peer.privateKey, publicKey: ours });
    const privJwk = { kty: 'OKP', crv: 'X25519', d: Buffer.from(rec['private-key'] ?? '', 'base64').toString('base64url'), x: Buffer.from(rec['public-key'] ?? '', 'base64').toString('base64url') };
    const fromUs = diffieHellman({
      privateKey: createPrivateKey({ key: privJwk, format: 'jwk' }),
      publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: peerPub }, format: 'jwk' }),
    });
    expect(fromUs.equals(fromPeer)).toBe(true);
  });

  it('a given private key is kept and its public key derived; PATCHing it updates public-key', async () => {
    const pair = generateKeyPairSync('x25519');
    const priv = Buffer.from(pair.privateKey.export({ format: 'jwk' }).d ?? '', 'base64url').toString('base64');
    const pub = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64');
    const put = asRec((await client.call(R, 'PUT', '/rest/interface/wireguard', { name: 'wg10', 'private-key': priv })).json);
    expect(put['private-key']).toBe(priv);
    expect(put['public-key']).toBe(pub);
    const other = generateKeyPairSync('x25519');
    const priv2 = Buffer.from(other.privateKey.export({ format: 'jwk' }).d ?? '', 'base64url').toString('base64');
    const patched = asRec((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg10', { 'private-key': priv2 })).json);
    expect(patched['public-key']).toBe(Buffer.from(other.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64'));
  });

  it('refuses malformed keys and duplicate interface names', async () => {
    expect((await client.call(R, 'PUT', '/rest/interface/wireguard', { name: 'wg11', 'private-key': 'not-a-key' })).status).toBe(400);
    const dup = await client.call(R, 'PUT', '/rest/interface/wireguard', { name: 'wg9' });
    expect(dup.json).toEqual({ detail: 'failure: already have interface with such name', error: 400, message: 'Bad Request' });
  });

  it('an unnamed interface is called wireguardN', async () => {
    expect(asRec((await client.call(R, 'PUT', '/rest/interface/wireguard', {})).json)['name']).toBe('wireguard1');
  });

  it('seeded emulators generate the same keys every run', async () => {
    const a = await startEmulator({ routers: [{ name: 'det', interfaces: [{ name: 'wg0' }] }], seed: 42 });
    const b = await startEmulator({ routers: [{ name: 'det', interfaces: [{ name: 'wg0' }] }], seed: 42 });
    const c = await startEmulator({ routers: [{ name: 'det', interfaces: [{ name: 'wg0' }] }], seed: 43 });
    const key = (e: Emulator): string => e.router('det').rows('interface/wireguard')[0]?.['public-key'] ?? '';
    expect(key(a)).toBe(key(b));
    expect(key(a)).not.toBe(key(c));
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});
