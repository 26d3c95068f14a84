/**
 * The daemon with a log reader that takes nothing (a stalled journald or container log pipe): SIGTERM still exits 0
 * within the shutdown's bound. pino writes the lines it holds at exit itself and retried for as long as the reader
 * refused them: the process stopped everything, closed its listener, and then never exited (found by review).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { unusedPort } from '../helpers/ports.js';

interface Daemon {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The built daemon on `routers` (config lines, given the port of a closed socket) with `stdout` as its log's
 * destination, once it answers ready.
 */
async function startDaemon(name: string, routers: (closed: number) => string[], stdout: 'pipe' | number): Promise<Daemon> {
  assertBuilt();
  const port = await unusedPort();
  const closed = await unusedPort();
  const path = join(mkdtempSync(join(tmpdir(), `${name}-`)), 'config.yml');
  writeFileSync(path, [`listen: "127.0.0.1:${port}"`, 'defaults:', '  username: monitor', `  password: "pw-${name}-1"`, '  timeout: 2s', 'routers:', ...routers(closed)].join('\n'));
  const child = spawn(process.execPath, [MAIN, '--config', path, '--log-level', 'debug'], { stdio: ['ignore', stdout, 'ignore'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, port, exited };
}

async function ready({ port }: Daemon): Promise<void> {
  await expect
    .poll(async () => (await fetch(`http://127.0.0.1:${port}/-/ready`).catch(() => undefined))?.status, { timeout: 20_000 })
    .toBe(200);
}

/** SIGTERM ends the daemon with status 0 within the shutdown's deadline (10 s) and the exit's grace and release (3 s). */
async function stopsOnSigterm({ child, exited }: Daemon): Promise<void> {
  const started = Date.now();
  child.kill('SIGTERM');
  const { code, signal } = await exited;
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(14_000);
}

describe('the daemon whose log reader takes nothing', () => {
  it('exits 0 on SIGTERM within the shutdown bound, the lines it could not write dropped', async () => {
    // 600 routers refusing connections: each logs its failure and its router going down, ~0.4 MB of lines, far
    // more than a pipe holds.
    const daemon = await startDaemon('stalled', (closed) => Array.from({ length: 600 }, (_, index) => `  - { name: r${index}, url: "https://127.0.0.1:${closed}" }`), 'pipe');
    const { child } = daemon;
    // Never read: the pipe fills, and every write after that is refused (EAGAIN).
    child.stdout?.pause();
    try {
      await ready(daemon);
      await stopsOnSigterm(daemon);
    } finally {
      child.kill('SIGKILL');
    }
  }, 45_000);

  it('keeps answering and stops on SIGTERM when every log write fails (stdout on a full disk: /dev/full, ENOSPC; found by a hostile tester)', async () => {
    // Linux's always-full device; present in Debian and in containers.
    expect(existsSync('/dev/full')).toBe(true);
    const full = openSync('/dev/full', 'w');
    const daemon = await startDaemon('full', (closed) => [`  - { name: r1, url: "https://127.0.0.1:${closed}" }`], full);
    closeSync(full);
    const { child, port } = daemon;
    try {
      await ready(daemon);
      // Lines keep failing as the router keeps failing: the daemon still answers (before: no answer at all).
      for (let round = 0; round < 3; round++) {
        child.kill('SIGHUP');
        expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      }
      await stopsOnSigterm(daemon);
    } finally {
      child.kill('SIGKILL');
    }
  }, 45_000);
});
