/**
 * `system/resource`: a bare object on 7.x (real-formats §1). `build-time` switches format at 7.11,
 * `factory-software` became `minimum-version` in 7.24, `bad-blocks` exists only on NAND boards.
 */
import { SystemSim } from '../sim/system-sim.js';
import type { BoardSeed, Row } from '../types.js';
import { formatSeconds } from '../util/duration.js';
import { hash32 } from '../util/rng.js';
import { atLeast } from '../util/version.js';
import type { RosVersion } from '../util/version.js';
import type { RouterContext, SingletonMenu, View } from './types.js';

/** Build dates of real releases where known (real-formats §1.1); others are extrapolated. */
const KNOWN_BUILDS: Record<string, string> = {
  '7.10': '2023-06-15 05:17:29',
  '7.16': '2024-09-20 13:00:27',
  '7.19.4': '2025-07-28 10:00:16',
  '7.20.5': '2025-11-27 08:17:04',
  '7.23.7': '2026-09-16 12:19:15',
  // The manual's capture of a CCR1016 (printed in the old format).
  '7.1beta4': '2020-12-04 14:19:51',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function buildDate(v: RosVersion): string {
  const known = KNOWN_BUILDS[v.text];
  if (known !== undefined) return known;
  // Roughly one minor release every two months since 7.10, patches a week apart.
  const ms = Date.UTC(2023, 5, 15) + ((v.minor - 10) * 61 + v.patch * 7) * 86_400_000;
  const h = hash32(v.text);
  const d = new Date(ms + (h % 86_400) * 1000);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** ≤7.10 prints `Jun/15/2023 05:17:29`, ≥7.11 `2023-06-15 05:17:29`. */
export function buildTime(v: RosVersion): string {
  const iso = buildDate(v);
  if (atLeast(v, '7.11')) return iso;
  const [date = '', time = ''] = iso.split(' ');
  const [y, m, d] = date.split('-');
  return `${MONTHS[Number(m) - 1] ?? 'Jan'}/${d}/${y} ${time}`;
}

export class ResourceMenu implements SingletonMenu {
  readonly kind = 'singleton';
  readonly #static: Row;
  readonly #sim: SystemSim;
  readonly #writeSectBase: number;
  readonly #totalHdd: number;
  readonly #diskFill: number;
  readonly #memoryLeak: number;
  readonly #totalMemory: number;
  #leakOrigin: number | undefined;
  /** Uptime when the disk was first looked at: the fill starts there, so a run never begins near a rotation. */
  #fillOrigin: number | undefined;

  constructor(
    private readonly router: RouterContext,
    name: string,
    channel: string,
    board: BoardSeed,
  ) {
    const v = router.version;
    const totalMemory = board.totalMemory ?? 1_073_741_824;
    const totalHdd = board.totalHdd ?? 134_217_728;
    this.#static = {
      'architecture-name': board.architecture ?? 'arm64',
      'board-name': board.boardName ?? 'CHR',
      'build-time': buildTime(v),
      cpu: board.cpu ?? 'ARM64',
      'cpu-count': String(board.cpuCount ?? 4),
      'cpu-frequency': String(board.cpuFrequencyMhz ?? 1400),
      platform: 'MikroTik',
      'total-hdd-space': String(totalHdd),
      'total-memory': String(totalMemory),
      version: `${v.text} (${channel})`,
    };
    // Both CHR captures (7.19.4, 7.23.7) say 7.1; hardware boards say what they shipped with (7.5 on a hAP ax²).
    this.#static[atLeast(v, '7.24') ? 'minimum-version' : 'factory-software'] = board.factorySoftware ?? ((board.boardName ?? 'CHR').startsWith('CHR') ? '7.1' : '7.5');
    if (board.nand === true) this.#static['bad-blocks'] = '0';
    this.#totalHdd = totalHdd;
    this.#diskFill = board.diskFillBytesPerSecond ?? 0;
    this.#memoryLeak = board.memoryLeakBytesPerSecond ?? 0;
    this.#totalMemory = totalMemory;
    this.#sim = new SystemSim(name, totalMemory);
    this.#writeSectBase = 10_000 + (hash32(name, 'sect') % 90_000);
  }

  /** 62 % free at boot; with a fill rate, falls block by block to 20 % and then rotates back. */
  #freeHdd(uptimeSeconds: number): number {
    const start = this.#totalHdd * 0.62;
    const span = this.#totalHdd * 0.42;
    this.#fillOrigin ??= uptimeSeconds;
    const elapsed = Math.max(0, uptimeSeconds - this.#fillOrigin);
    const used = span > 0 ? (this.#diskFill * elapsed) % span : 0;
    return Math.floor((start - used) / 4096) * 4096;
  }

  /** Free memory less what the leak took since it was first read, never below a page. */
  #freeMemory(wandering: number, uptimeSeconds: number): number {
    if (this.#memoryLeak <= 0) return wandering;
    this.#leakOrigin ??= uptimeSeconds;
    const span = this.#totalMemory * 0.6;
    const leaked = (this.#memoryLeak * Math.max(0, uptimeSeconds - this.#leakOrigin)) % span;
    return Math.max(4096, Math.floor((wandering - leaked) / 4096) * 4096);
  }

  row(view: View): Row {
    const s = this.#sim.sample(view.now, this.router.bootAt());
    return {
      ...this.#static,
      'cpu-load': String(s.cpuLoad),
      'free-hdd-space': String(this.#freeHdd(s.uptimeSeconds)),
      'free-memory': String(this.#freeMemory(s.freeMemory, s.uptimeSeconds)),
      uptime: formatSeconds(s.uptimeSeconds),
      'write-sect-since-reboot': String(s.writeSectSinceReboot),
      'write-sect-total': String(this.#writeSectBase + s.writeSectSinceReboot),
    };
  }
}
