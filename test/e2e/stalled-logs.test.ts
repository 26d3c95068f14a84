/**
 * The daemon with a log reader that takes nothing (a stalled journald or container log pipe): SIGTERM still exits 0
 * within the shutdown's bound. pino writes the lines it holds at exit itself and retried for as long as the reader
 * refused them: the process stopped everything, closed its listener, and then never exited (found by review).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { unusedPort } from '../helpers/ports.js';

describe('the daemon whose log reader takes nothing', () => {
  it('exits 0 on SIGTERM within the shutdown bound, the lines it could not write dropped', async () => {
    assertBuilt();
    const port = await unusedPort();
    const closed = await unusedPort();
    // 600 routers refusing connections: each logs its failure and its router going down, ~0.4 MB of lines, far
    // more than a pipe holds.
    const routers = Array.from({ length: 600 }, (_, index) => `  - { name: r${index}, url: "https://127.0.0.1:${closed}" }`);
    const dir = mkdtempSync(join(tmpdir(), 'stalled-logs-'));
    const path = join(dir, 'config.yml');
    writeFileSync(path, [`listen: "127.0.0.1:${port}"`, 'defaults:', '  username: monitor', '  password: "pw-stalled-1"', '  timeout: 2s', 'routers:', ...routers].join('\n'));
    const child = spawn(process.execPath, [MAIN, '--config', path, '--log-level', 'debug'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // Never read: the pipe fills, and every write after that is refused (EAGAIN).
    child.stdout.pause();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/-/ready`).catch(() => undefined))?.status, { timeout: 20_000 })
        .toBe(200);
      const started = Date.now();
      child.kill('SIGTERM');
      const { code, signal } = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      // The shutdown's deadline (10 s) and the exit's grace and release (3 s) bound it.
      expect(Date.now() - started).toBeLessThan(14_000);
    } finally {
      child.kill('SIGKILL');
    }
  }, 45_000);

  it('keeps answering and stops on SIGTERM when every log write fails (stdout on a full disk: /dev/full, ENOSPC; found by a hostile tester)', async () => {
    assertBuilt();
    // Linux's always-full device; present in Debian and in containers.
    expect(existsSync('/dev/full')).toBe(true);
    const port = await unusedPort();
    const closed = await unusedPort();
    const dir = mkdtempSync(join(tmpdir(), 'full-logs-'));
    const path = join(dir, 'config.yml');
    writeFileSync(path, [`listen: "127.0.0.1:${port}"`, 'defaults:', '  username: monitor', '  password: "pw-full-1"', '  timeout: 2s', 'routers:', `  - { name: r1, url: "https://127.0.0.1:${closed}" }`].join('\n'));
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [MAIN, '--config', path, '--log-level', 'debug'], { stdio: ['ignore', full, 'ignore'] });
    closeSync(full);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/-/ready`).catch(() => undefined))?.status, { timeout: 20_000 })
        .toBe(200);
      // Lines keep failing as the router keeps failing: the daemon still answers (before: no answer at all).
      for (let round = 0; round < 3; round++) {
        child.kill('SIGHUP');
        expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      }
      const started = Date.now();
      child.kill('SIGTERM');
      const { code, signal } = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(14_000);
    } finally {
      child.kill('SIGKILL');
    }
  }, 45_000);
});
