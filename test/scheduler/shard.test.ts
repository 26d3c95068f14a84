/**
 * Scale-out: N replicas split the routers by a stable hash of the name. Every router belongs to exactly one
 * shard for any N, the shards are about even, `--shard i/n` and the config's `shard:` keep exactly that share,
 * and replicas started that way really poll disjoint sets of routers that together cover them all.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { applyOverrides } from '../../src/cli/overrides.js';
import type { CliOptions } from '../../src/cli/args.js';
import type { Config } from '../../src/config/types.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { inShard, shardOf } from '../../src/scheduler/shard.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';

const COUNTS = [1, 2, 3, 5, 8];

/** ~500 names in the shapes people use: numbered sites, host names, mixed case, dots and underscores. */
const NAMES = Array.from({ length: 500 }, (_, i) => {
  switch (i % 4) {
    case 0:
      return `site-${String(i).padStart(3, '0')}`;
    case 1:
      return `r${i}.branch.example.net`;
    case 2:
      return `CPE_${i}_${(i * 7919) % 1000}`;
    default:
      return `edge${i}-${['ams', 'fra', 'lon', 'nyc'][i % 4 === 3 ? (i >> 2) % 4 : 0]}`;
  }
});

function configOf(names: readonly string[], extra: Record<string, unknown> = {}): Config {
  return testConfig({
    ...extra,
    defaults: { username: 'monitor', password: 'x' },
    routers: names.map((name, i) => ({ name, url: `https://10.${(i >> 8) & 255}.${i & 255}.1` })),
  });
}

const run = (shard?: string): CliOptions => ({ command: 'run', config: 'config.yml', ...(shard === undefined ? {} : { shard }) });
const namesOf = (config: Config): string[] => config.routers.map((router) => router.name);

describe('shardOf / inShard', () => {
  it.each(COUNTS)('puts every router in exactly one of %i shards', (count) => {
    expect(new Set(NAMES).size).toBe(NAMES.length);
    for (const name of NAMES) {
      const shard = shardOf(name, count);
      expect(Number.isInteger(shard) && shard >= 0 && shard < count, name).toBe(true);
      const owners = Array.from({ length: count }, (_, index) => index).filter((index) => inShard(name, { index, count }));
      expect(owners, name).toEqual([shard]);
    }
  });

  it.each(COUNTS.filter((count) => count > 1))('spreads 500 routers evenly enough over %i shards', (count) => {
    const sizes = new Array<number>(count).fill(0);
    for (const name of NAMES) sizes[shardOf(name, count)] = (sizes[shardOf(name, count)] ?? 0) + 1;
    const even = NAMES.length / count;
    // Within ±35 % of an even split (about 3 standard deviations at 8 shards).
    for (const size of sizes) expect(Math.abs(size - even) / even).toBeLessThanOrEqual(0.35);
  });

  it('is stable across versions: pinned values (a new hash would move routers between running replicas)', () => {
    const names = ['hq', 'branch', 'site-000', 'scale-001', 'scale-002'];
    expect(names.map((name) => [shardOf(name, 7), shardOf(name, 4), shardOf(name, 2)])).toEqual([
      [3, 3, 1],
      [0, 0, 0],
      [2, 2, 0],
      [6, 3, 1],
      [3, 0, 0],
    ]);
  });

  it('without a shard, every router is in', () => {
    for (const name of NAMES) expect(inShard(name, undefined)).toBe(true);
  });
});

describe('--shard and shard: in the config', () => {
  const config = configOf(NAMES);

  it.each(COUNTS)('--shard i/%i keeps exactly shard i; the shards partition the routers', (count) => {
    const seen = new Map<string, number>();
    for (let index = 0; index < count; index++) {
      const kept = applyOverrides(config, run(`${index}/${count}`));
      expect(kept.shard).toEqual({ index, count });
      expect(namesOf(kept)).toEqual(NAMES.filter((name) => shardOf(name, count) === index));
      for (const name of namesOf(kept)) seen.set(name, (seen.get(name) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual([...NAMES].sort());
    expect([...seen.values()].every((times) => times === 1)).toBe(true);
  });

  it.each(COUNTS)('a config with shard: { index, count: %i } keeps the same routers as --shard', (count) => {
    for (let index = 0; index < count; index++) {
      const fromFile = applyOverrides(configOf(NAMES, { shard: { index, count } }), run());
      expect(namesOf(fromFile)).toEqual(namesOf(applyOverrides(config, run(`${index}/${count}`))));
    }
  });

  it('--shard wins over the config file', () => {
    const kept = applyOverrides(configOf(NAMES, { shard: { index: 0, count: 2 } }), run('2/3'));
    expect(kept.shard).toEqual({ index: 2, count: 3 });
    expect(namesOf(kept)).toEqual(NAMES.filter((name) => shardOf(name, 3) === 2));
  });

  it('without a shard every router stays', () => {
    expect(namesOf(applyOverrides(config, run()))).toEqual(NAMES);
  });
});

describe('replicas against emulated routers', () => {
  const ROUTERS = 12;
  let emulator: Emulator;
  let ca: string;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    emulator = await startEmulator({ scenario: 'scale', scale: { routers: ROUTERS, interfaces: 1, peers: 4 } });
    ca = writeCa(emulator);
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('N replicas, each started with its --shard, poll every router exactly once between them', async () => {
    const full = testConfig({
      defaults: { username: 'admin', password: '', timeout: '5s', tls: { ca_file: ca } },
      routers: emulator.routers.map((router) => ({ name: router.name, url: router.url })),
    });
    for (const count of [1, 2, 3, 5]) {
      const before = new Map(emulator.routers.map((router) => [router.name, router.stats.requests]));
      const polledBy = new Map<string, number[]>();
      for (let index = 0; index < count; index++) {
        const app = createApp(applyOverrides(full, run(`${index}/${count}`)), { logger, jitter: false });
        try {
          expect(await app.collectOnce()).toBe(true);
        } finally {
          await app.stop();
        }
        for (const router of emulator.routers) {
          if (router.stats.requests > (before.get(router.name) ?? 0)) polledBy.set(router.name, [...(polledBy.get(router.name) ?? []), index]);
          before.set(router.name, router.stats.requests);
        }
      }
      expect(polledBy.size, `${count} replicas`).toBe(ROUTERS);
      for (const [name, replicas] of polledBy) expect(replicas, `${name} with ${count} replicas`).toEqual([shardOf(name, count)]);
    }
  });
});
