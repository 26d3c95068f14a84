/**
 * Deterministic pseudo-randomness. The emulator must be reproducible (same seed ⇒ same keys, rates and
 * wander), so nothing in the simulation calls Math.random.
 */

/** FNV-1a over the parts joined by NUL, then mixed: a cheap, stable 32-bit hash of names and numbers. */
export function hash32(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // murmur3's finaliser: FNV alone barely changes the high bits when only the last character
  // differs, and unit() reads the high bits.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A hash mapped to [0, 1). */
export function unit(...parts: readonly (string | number)[]): number {
  return hash32(...parts) / 0x1_0000_0000;
}

/** mulberry32: tiny, fast and good enough for simulation values (not for secrets). */
export class Rng {
  #state: number;

  constructor(seed: number | string) {
    this.#state = typeof seed === 'number' ? seed >>> 0 : hash32(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** A child generator whose sequence depends only on this seed and the label, not on call order. */
  fork(label: string | number): Rng {
    return new Rng(hash32(this.#state, label));
  }
}
