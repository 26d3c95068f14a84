/**
 * Commands whose stdout or stderr cannot be written (a file on a full disk: /dev/full gives ENOSPC to every write):
 * `check` still exits UNKNOWN (3) with one line on stderr, not a stack trace and 1 (read as WARNING); `once` says so
 * in one line; and a stderr that cannot be written costs `once` its log lines, not its exposition (found by a
 * hostile tester: 0 bytes written).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { unusedPort } from '../helpers/ports.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with stdout or stderr on /dev/full; the other is read. */
async function run(args: string[], full: 'stdout' | 'stderr'): Promise<Ran> {
  const device = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', full === 'stdout' ? device : 'pipe', full === 'stderr' ? device : 'pipe'] });
  closeSync(device);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

async function config(): Promise<string> {
  const closed = await unusedPort();
  const path = join(mkdtempSync(join(tmpdir(), 'unwritable-')), 'config.yml');
  writeFileSync(path, ['defaults:', '  username: monitor', '  password: "pw-unwritable-1"', '  timeout: 1s', 'routers:', `  - { name: r1, url: "https://127.0.0.1:${closed}" }`].join('\n'));
  return path;
}

describe('commands whose output cannot be written (/dev/full)', () => {
  it('check: UNKNOWN (3), one line on stderr naming the error and the answer', async () => {
    assertBuilt();
    expect(existsSync('/dev/full')).toBe(true);
    const ran = await run(['check', '--config', await config(), '-t', '10'], 'stdout');
    expect(ran.code).toBe(3);
    const lines = ran.stderr.split('\n').filter((line) => line.startsWith('routeros-exporter check:'));
    expect(lines).toEqual(['routeros-exporter check: cannot write to stdout: ENOSPC; the answer was: ROUTEROS CRITICAL - no router could be reached: r1 (connect)']);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('once: one line saying stdout cannot be written, status 1, no stack trace', async () => {
    const ran = await run(['once', '--config', await config()], 'stdout');
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('routeros-exporter: cannot write to stdout: ENOSPC\n');
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('once with stderr unwritable still writes its exposition', async () => {
    const ran = await run(['once', '--config', await config()], 'stderr');
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/^routeros_up\{router="r1"\} 0$/m);
  }, 30_000);
});
