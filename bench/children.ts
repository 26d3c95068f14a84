/** Child processes of the bench: TypeScript children over IPC (through tsx), the exporter from dist/. */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ChildRequest } from './ipc.js';

const TSX = import.meta.resolve('tsx');

/** Starts bench/<script> in its own Node process with an IPC channel. */
export function forkChild(script: string, args: readonly string[], options: { maxOldSpaceMb?: number } = {}): ChildProcess {
  const execArgv = ['--import', TSX];
  if (options.maxOldSpaceMb !== undefined) execArgv.push(`--max-old-space-size=${options.maxOldSpaceMb}`);
  return fork(fileURLToPath(new URL(script, import.meta.url)), [...args], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** The next message of the given type; rejects if the child exits first or the wait is too long. */
export function nextReply<T extends ChildReply['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no ${type} message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: ChildReply): void => {
      if (message.type === type) finish(undefined, message as Extract<ChildReply, { type: T }>);
    };
    const onExit = (code: number | null): void => finish(new Error(`child exited (${code ?? 'signal'}) before ${type}`));
    const finish = (error: Error | undefined, value?: Extract<ChildReply, { type: T }>): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error !== undefined) reject(error);
      else resolve(value as Extract<ChildReply, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts the emulator child (bench/emulator-child.ts: routers, interfaces, peers, then optional router-side
 * settings) in `children`, waits until every router is built, and writes its CA to `dir`/ca.pem for the exporter.
 */
export async function startEmulatorChild(
  args: readonly (string | number)[],
  dir: string,
  children: (ChildProcess | undefined)[],
): Promise<{ emulator: ChildProcess; routers: Extract<ChildReply, { type: 'ready' }>['routers']; caFile: string }> {
  const emulator = forkChild('emulator-child.ts', args.map(String), { maxOldSpaceMb: 8192 });
  children.push(emulator);
  const { routers, ca } = await nextReply(emulator, 'ready', 600_000);
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca);
  return { emulator, routers, caFile };
}

export function ask(child: ChildProcess, request: ChildRequest): void {
  child.send(request);
}

/** Ends a child we started and waits for it to go. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
