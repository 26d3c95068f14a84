/**
 * What a collector promises before any of its code runs: its config defaults and its metric families. Each
 * collector states it in its own `<collector>.contract.ts`, which imports only metrics/family.ts, so that config
 * (names, defaults, schedule checks) and metrics (the exposition's family list) can read every contract without
 * importing collector code, which imports both of them back.
 */
import type { Family } from '../metrics/family.js';

/** The parts of /health a run can change (health/watch.ts re-evaluates only those after a run). */
export type HealthPart = 'wireguard' | 'setup' | 'pings';

export interface CollectorDescriptor {
  /** The key under `collectors:` and `schedules:` in the config, and the `collector` label. */
  readonly name: string;
  readonly description: string;
  readonly defaultEnabled: boolean;
  /** Six-field cron expression used when neither the router nor `defaults` sets `schedules.<name>`. */
  readonly defaultSchedule: string;
  /**
   * `router`: one job per router on `schedules.<name>` (config checks it against the router's timeout);
   * `targets`: one job per configured target, each with its own schedule and run time (config checks those).
   */
  readonly jobsPer: 'router' | 'targets';
  /** The /health parts a run of this collector can change. */
  readonly healthParts: readonly HealthPart[];
  /** The metric families its runs write, in exposition order. */
  readonly families: readonly Family[];
}
