/** The soak's child processes: started with their output collected, waited for, stopped; their memory from /proc. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** A child process whose output is collected; `exited` is set when it ends. */
export function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcessByStdio<null, Readable, Readable>; output: () => string; exited: () => number | null | undefined } {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  let code: number | null | undefined;
  child.on('exit', (exit) => (code = exit));
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return { child, output: () => output, exited: () => code };
}

export async function waitFor<T>(what: string, probe: () => T | undefined, gone: () => boolean): Promise<T> {
  for (let waited = 0; ; waited += 100) {
    const value = probe();
    if (value !== undefined) return value;
    if (gone() || waited > 20_000) throw new Error(`${what} did not start`);
    await sleep(100);
  }
}

export async function stop(running: ReturnType<typeof run>): Promise<void> {
  running.child.kill('SIGTERM');
  for (let waited = 0; running.exited() === undefined && waited < 12_000; waited += 50) await sleep(50);
  if (running.exited() === undefined) running.child.kill('SIGKILL');
}

/** Resident set size of a process from /proc (Linux), in bytes. */
export function rssOf(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
