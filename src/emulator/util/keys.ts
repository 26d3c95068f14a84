/**
 * WireGuard keys: Curve25519 (X25519) pairs in the 44-character base64 form RouterOS shows.
 * Real pairs come from node:crypto so a client can check public-key against private-key.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { Rng } from './rng.js';

/** PKCS#8 DER header of an X25519 private key; the 32 raw key bytes follow it. */
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

export interface KeyPair {
  readonly privateKey: string;
  readonly publicKey: string;
}

const KEY_TEXT = /^[A-Za-z0-9+/]{43}=$/;

/** True for base64 text of exactly 32 bytes, the only form WireGuard keys take. */
export function isWgKey(text: string): boolean {
  return KEY_TEXT.test(text) && Buffer.from(text, 'base64').length === 32;
}

/** The public key of a base64 private key. */
export function publicKeyOf(privateKey: string): string {
  const raw = Buffer.from(privateKey, 'base64');
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, raw]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - 32).toString('base64');
}

/** A private key: deterministic from `rng` when given (seeded runs), else from the OS's randomness. */
export function generatePrivateKey(rng?: Rng): string {
  if (rng === undefined) {
    const d = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' }).d ?? '';
    return Buffer.from(d, 'base64url').toString('base64');
  }
  const raw = rng.bytes(32);
  // Clamp as `wg genkey` does, so the stored private key looks like a real one.
  raw[0] = (raw[0] ?? 0) & 248;
  raw[31] = ((raw[31] ?? 0) & 127) | 64;
  return raw.toString('base64');
}

export function generateKeyPair(rng?: Rng): KeyPair {
  const privateKey = generatePrivateKey(rng);
  return { privateKey, publicKey: publicKeyOf(privateKey) };
}

/**
 * A remote side's public key. Any 32 bytes are a usable X25519 public key, and skipping the
 * scalar multiplication keeps 100,000 scale-scenario peers cheap to build.
 */
export function randomPublicKey(rng: Rng): string {
  return rng.bytes(32).toString('base64');
}
