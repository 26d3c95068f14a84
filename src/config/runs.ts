/**
 * The schedules a router's runs keep, from its config alone: each collector switched on, pings and bandwidth tests
 * by their targets' own schedules (switched on with no target, they run nothing). The client pool sizes its
 * keep-alive by them; the config warns of a router with none.
 */
import type { CollectorName, RouterConfig } from './types.js';

export function runSchedules(router: RouterConfig): string[] {
  const schedules: string[] = [];
  for (const [name, on] of Object.entries(router.collectors) as [CollectorName, boolean][]) {
    if (!on) continue;
    if (name === 'ping') schedules.push(...router.ping.map((target) => target.schedule));
    else if (name === 'bandwidth_test') schedules.push(...router.bandwidthTest.map((test) => test.schedule));
    else schedules.push(router.schedules[name]);
  }
  return schedules;
}
