/**
 * `system/resource` values derived from the clock: uptime since the last boot, and a cpu-load /
 * free-memory that wander plausibly but deterministically (sums of slow waves with seeded phases,
 * plus a hash step every 5 s), so two reads at the same instant always agree.
 */
import { unit } from '../util/rng.js';

export interface SystemSample {
  uptimeSeconds: number;
  cpuLoad: number;
  freeMemory: number;
  writeSectSinceReboot: number;
}

export class SystemSim {
  readonly #name: string;
  readonly #baseLoad: number;
  readonly #phases: readonly [number, number];
  readonly #totalMemory: number;

  constructor(seedName: string, totalMemory: number) {
    this.#name = seedName;
    this.#baseLoad = 3 + Math.floor(unit(seedName, 'load') * 15);
    this.#phases = [unit(seedName, 'p1') * 2 * Math.PI, unit(seedName, 'p2') * 2 * Math.PI];
    this.#totalMemory = totalMemory;
  }

  sample(now: number, bootAt: number): SystemSample {
    const t = now / 1000;
    const [p1, p2] = this.#phases;
    const wave = 8 * Math.sin((2 * Math.PI * t) / 420 + p1) + 4 * Math.sin((2 * Math.PI * t) / 53 + p2);
    const step = unit(this.#name, Math.floor(t / 5)) * 6;
    const cpuLoad = Math.round(Math.min(100, Math.max(0, this.#baseLoad + wave + step)));
    const usedShare = 0.3 + 0.04 * Math.sin((2 * Math.PI * t) / 900 + p2) + 0.01 * unit(this.#name, 'm', Math.floor(t / 15));
    // Memory is handed out in 4 KiB pages, so free memory is a page multiple.
    const freeMemory = Math.floor((this.#totalMemory * (1 - usedShare)) / 4096) * 4096;
    const uptimeSeconds = Math.max(0, Math.floor((now - bootAt) / 1000));
    return { uptimeSeconds, cpuLoad, freeMemory, writeSectSinceReboot: Math.floor(uptimeSeconds / 37) };
  }
}
