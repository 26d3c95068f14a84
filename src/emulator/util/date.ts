/**
 * Router-local dates as RouterOS prints them (real-formats §7.5): `2026-09-30 07:14:36` from 7.11
 * on, `Sep/30/2026 07:14:36` before. The emulator's clock is read as the router's local time (UTC).
 */
import { atLeast } from './version.js';
import type { RosVersion } from './version.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

export function formatRouterDate(ms: number, v: RosVersion): string {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (atLeast(v, '7.11')) return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${time}`;
  return `${MONTHS[d.getUTCMonth()] ?? 'Jan'}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} ${time}`;
}
