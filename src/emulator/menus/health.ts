/**
 * `system/health` in the forms real routers answer (docs/emulator.md, "Health"): RouterOS 7
 * hardware lists `{".id","name","value","type"}` rows; CHR 7.23.7 a bare `{state,…}` object
 * (dumbmonit capture); older firmware a bare object of sensor values; a board without sensors
 * `[]`. Values wander slowly and deterministically with the clock; faults (control API) stop fans,
 * fail PSUs and raise temperatures.
 */
import { notAcceptable } from '../rest/errors.js';
import type { HealthFaults, HealthSeed, Row } from '../types.js';
import { unit } from '../util/rng.js';
import type { ListMenu, Menu, SingletonMenu, View } from './types.js';

interface Sensor {
  name: string;
  type: string;
  value(now: number, faults: HealthFaults): string;
}

/** A slow wave (period ~17 min) with a seeded phase: amplitude `amp` around 0. */
function wave(seed: string, name: string, now: number, amp: number): number {
  return amp * Math.sin((2 * Math.PI * now) / 1_000_000 + unit(seed, name) * 2 * Math.PI);
}

export function sensors(routerName: string, seed: HealthSeed): Sensor[] {
  const temp = seed.temperatureC ?? 38;
  const volts = seed.voltageV ?? 24;
  const out: Sensor[] = [
    { name: 'voltage', type: 'V', value: (t) => (volts + wave(routerName, 'v', t, 0.15)).toFixed(1) },
    { name: 'temperature', type: 'C', value: (t, f) => String(Math.round(temp + wave(routerName, 't', t, 2) + (f.temperatureRiseC ?? 0))) },
    { name: 'cpu-temperature', type: 'C', value: (t, f) => String(Math.round(temp + 8 + wave(routerName, 'c', t, 3) + (f.temperatureRiseC ?? 0))) },
  ];
  if (seed.power === true) {
    out.push({ name: 'current', type: 'A', value: (t) => (0.5 + wave(routerName, 'a', t, 0.05)).toFixed(1) });
    out.push({ name: 'power-consumption', type: 'W', value: (t) => ((0.5 + wave(routerName, 'a', t, 0.05)) * volts).toFixed(1) });
  }
  for (let i = 1; i <= (seed.fans ?? 0); i++) {
    out.push({
      name: `fan${i}-speed`,
      type: 'RPM',
      value: (t, f) => (f.failedFans?.includes(i) === true ? '0' : String(Math.round(4500 + wave(routerName, `f${i}`, t, 120)))),
    });
  }
  for (let i = 1; i <= (seed.psus ?? 0); i++) {
    out.push({ name: `psu${i}-state`, type: '', value: (_t, f) => (f.failedPsus?.includes(i) === true ? 'fail' : 'ok') });
  }
  return out;
}

class HealthRows implements ListMenu {
  readonly kind = 'list';
  readonly named = true;
  readonly removable = false;

  constructor(
    private readonly list: readonly Sensor[],
    private readonly faults: () => HealthFaults,
  ) {}

  #row(i: number, view: View): Row | undefined {
    const s = this.list[i];
    if (s === undefined) return undefined;
    return { '.id': `*${(i + 1).toString(16).toUpperCase()}`, name: s.name, type: s.type, value: s.value(view.now, this.faults()) };
  }

  rows(view: View): Row[] {
    return this.list.map((_, i) => this.#row(i, view) ?? {});
  }

  find(ref: string): number | undefined {
    const byId = /^\*[0-9a-fA-F]+$/.test(ref) ? parseInt(ref.slice(1), 16) : undefined;
    const i = byId !== undefined ? byId - 1 : this.list.findIndex((s) => s.name === ref);
    return i >= 0 && i < this.list.length ? i + 1 : undefined;
  }

  row(id: number, view: View): Row | undefined {
    return this.#row(id - 1, view);
  }

  add(): number {
    throw notAcceptable('add');
  }

  set(): void {
    throw notAcceptable('set');
  }

  remove(): void {
    throw notAcceptable('remove');
  }
}

class HealthObject implements SingletonMenu {
  readonly kind = 'singleton';

  constructor(private readonly make: (now: number) => Row) {}

  row(view: View): Row {
    return this.make(view.now);
  }
}

export function healthMenu(routerName: string, seed: HealthSeed, faults: () => HealthFaults): Menu {
  switch (seed.form) {
    case 'rows':
      return new HealthRows(sensors(routerName, seed), faults);
    case 'none':
      return new HealthRows([], faults);
    case 'object':
      // CHR 7.23.7: no sensors, only the (settings) state of the health monitor.
      return new HealthObject(() => ({ state: 'disabled', 'state-after-reboot': 'enabled' }));
    case 'legacy-object': {
      const list = sensors(routerName, seed);
      return new HealthObject((now) => {
        const f = faults();
        const row: Row = {};
        for (const s of list) row[s.name] = s.value(now, f);
        return row;
      });
    }
  }
}
