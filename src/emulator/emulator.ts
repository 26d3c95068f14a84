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

export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const DEFAULT_STALE_AFTER_MS = 60_000;

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
  const routers = seeds.map((seed, i) => {
    const state = new RouterState(seed, { now, seed: options.seed ?? 1, users: options.users ?? DEFAULT_USERS });
    applySeed(state, seed, start, options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS);
    return new RouterHandle(state, {
      host,
      port: basePort === 0 ? 0 : basePort + i,
      tls,
      capMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      control: options.control ?? false,
    });
  });
  const close = async (): Promise<void> => {
    await Promise.all(routers.map((r) => r.stop()));
  };
  try {
    await Promise.all(routers.map((r) => r.start()));
  } catch (error) {
    await close();
    throw error;
  }
  const byName = new Map<string, EmulatedRouter>(routers.map((r) => [r.name, r]));
  return {
    routers,
    ca: tls.cert,
    router(name: string): EmulatedRouter {
      const r = byName.get(name);
      if (r === undefined) throw new Error(`no emulated router named ${name}`);
      return r;
    },
    close,
  };
}
