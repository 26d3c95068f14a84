/** Runs the built CLI (dist/, made by `npm test` before vitest) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

export const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;

export function assertBuilt(): void {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test does it first)');
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return finished(startCli(args, env));
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess & { output: { stdout: string; stderr: string } } {
  assertBuilt();
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: { stdout: string; stderr: string } };
  child.output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (child.output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (child.output.stderr += chunk.toString()));
  return child;
}

export function finished(child: ChildProcess & { output: { stdout: string; stderr: string } }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ...child.output }));
  });
}
