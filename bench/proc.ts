/**
 * Another process's CPU time and memory from /proc (Linux): what the exporter itself spends,
 * not what the bench, the emulator or the baselines spend.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

export interface ProcSample {
  /** User + system CPU seconds since the process started. */
  cpuSeconds: number;
  rssBytes: number;
  /** Peak resident set size (VmHWM). */
  peakRssBytes: number;
}

export function sampleProcess(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    cpuSeconds: ticks / TICKS_PER_SECOND,
    rssBytes: kilobytes(status, 'VmRSS') * 1024,
    peakRssBytes: kilobytes(status, 'VmHWM') * 1024,
  };
}

function kilobytes(status: string, key: string): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return match === null ? Number.NaN : Number(match[1]);
}
