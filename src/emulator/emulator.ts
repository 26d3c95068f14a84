/**
 * startEmulator: builds every router from the chosen scenario (or explicit seeds), shares one
 * certificate among them, and listens on port+i (or free ports).
 */
import { RouterHandle } from './router.js';
import { DEMO_ROUTERS } from './scenarios/demo.js';
import { DEFAULT_SCALE, scaleScenario } from './scenarios/scale.js';
import { applySeed } from './state/seed.js';
import { RouterState } from './state/router-state.js';
import { DEFAULT_USERS } from './state/users.js';
import { selfSignedTls } from './tls.js';
import type { EmulatedRouter, Emulator, EmulatorOptions, RouterSeed } from './types.js';
import { parseVersion } from './util/version.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const DEFAULT_STALE_AFTER_MS = 60_000;
const DEFAULT_VERSION = '7.19.4';

function seedsOf(options: EmulatorOptions): readonly RouterSeed[] {
  if (options.routers !== undefined) return options.routers;
  if (options.scenario === 'scale') return scaleScenario(options.scale ?? DEFAULT_SCALE);
  return DEMO_ROUTERS;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const now = options.now ?? Date.now;
  const seeds = seedsOf(options);
  const names = new Set(seeds.map((s) => s.name));
  if (names.size !== seeds.length) throw new Error('router names must be unique');
  const tls = options.tls ?? (await selfSignedTls());
  const start = now();
  const host = options.host ?? '127.0.0.1';
  const basePort = options.port ?? 0;
  const users = options.users ?? DEFAULT_USERS;
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  // Explicit and demo seeds are built at once so a bad seed fails here; generated scale seeds are
  // built on first use or by the warm-up below.
  const eager = options.routers !== undefined || options.scenario !== 'scale';
  const routers = seeds.map((seed, i) => {
    const build = (): RouterState => {
      const state = new RouterState(seed, { now, start, seed: options.seed ?? 1, users });
      applySeed(state, seed, start, staleAfterMs);
      return state;
    };
    return new RouterHandle(seed.name, parseVersion(seed.version ?? DEFAULT_VERSION).text, build, {
      host,
      port: basePort === 0 ? 0 : basePort + i,
      tls,
      capMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      control: options.control ?? false,
      ...(options.keepAliveSeconds === undefined ? {} : { keepAliveMs: options.keepAliveSeconds * 1000 }),
      ...(options.tlsSessionResumption === undefined ? {} : { tlsSessionResumption: options.tlsSessionResumption }),
    }, eager);
  });
  let warming: NodeJS.Immediate | undefined;
  const close = async (): Promise<void> => {
    clearImmediate(warming);
    await Promise.all(routers.map((r) => r.stop()));
  };
  try {
    await Promise.all(routers.map((r) => r.start()));
  } catch (error) {
    await close();
    throw error;
  }
  // Build the rest in the background, one router per turn of the event loop, so requests keep
  // being served meanwhile; `ready` tells benchmarks when the building is over.
  const ready = new Promise<void>((resolve) => {
    let next = 0;
    const warmOne = (): void => {
      routers[next++]?.warm();
      if (next < routers.length) warming = setImmediate(warmOne);
      else resolve();
    };
    if (eager) resolve();
    else warming = setImmediate(warmOne);
  });
  const byName = new Map<string, EmulatedRouter>(routers.map((r) => [r.name, r]));
  return {
    routers,
    ca: tls.cert,
    ready,
    router(name: string): EmulatedRouter {
      const r = byName.get(name);
      if (r === undefined) throw new Error(`no emulated router named ${name}`);
      return r;
    },
    close,
  };
}
