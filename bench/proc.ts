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
  /** Of them, in the kernel (system calls: sockets, TLS records written and read). */
  systemSeconds: number;
  /** Of them, on the main thread (JavaScript and what it calls); the rest is V8's and libuv's helper threads. */
  mainThreadSeconds: number;
  rssBytes: number;
  /** Peak resident set size (VmHWM). */
  peakRssBytes: number;
}

export function sampleProcess(pid: number): ProcSample {
  const whole = cpuTicks(`/proc/${pid}/stat`);
  // The main thread's task has the process's id.
  const main = cpuTicks(`/proc/${pid}/task/${pid}/stat`);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    cpuSeconds: (whole.user + whole.system) / TICKS_PER_SECOND,
    systemSeconds: whole.system / TICKS_PER_SECOND,
    mainThreadSeconds: (main.user + main.system) / TICKS_PER_SECOND,
    rssBytes: kilobytes(status, 'VmRSS') * 1024,
    peakRssBytes: kilobytes(status, 'VmHWM') * 1024,
  };
}

function cpuTicks(path: string): { user: number; system: number } {
  const stat = readFileSync(path, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the name.
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

function kilobytes(status: string, key: string): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return match === null ? Number.NaN : Number(match[1]);
}
