/**
 * `check`'s log lines on stderr: after its answer, at most a page of them. A monitoring system that reads stderr
 * with stdout (Icinga) took the first JSON log line for the status line, 300 dead routers wrote half a megabyte
 * beside the answer, and a stderr reader that took nothing held the check past its deadline until it was killed
 * (its writes were synchronous; found by review).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CHECK_LOG_BYTES } from '../../src/cli/check.js';
import { HeldLogLines } from '../../src/cli/logger.js';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { unusedPort } from '../helpers/ports.js';

/** A config of `count` routers that refuse connections: each logs its failure and its going down. */
async function deadRouters(count: number): Promise<string> {
  const closed = await unusedPort();
  const routers = Array.from({ length: count }, (_, index) => `  - { name: r${index}, url: "https://127.0.0.1:${closed}" }`);
  const path = join(mkdtempSync(join(tmpdir(), 'check-logs-')), 'config.yml');
  writeFileSync(path, ['defaults:', '  username: monitor', '  password: "pw-check-logs-1"', '  timeout: 2s', 'routers:', ...routers, ''].join('\n'));
  return path;
}

/**
 * `check --timeout 10` of dead routers with stderr given as `stderr` (a pipe this test never reads, or a descriptor):
 * it answers CRITICAL on stdout and exits 2 within `withinMs`, rather than being held by its stderr.
 */
async function expectCriticalWithin(config: string, stderr: 'pipe' | number, withinMs: number): Promise<void> {
  const child = spawn(process.execPath, [MAIN, 'check', '--config', config, '--timeout', '10'], { stdio: ['ignore', 'pipe', stderr] });
  child.stderr?.pause();
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stuck = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 25_000).unref());
  try {
    expect(await Promise.race([exited, stuck])).toBe(2);
    expect(Date.now() - started).toBeLessThan(withinMs);
    expect(stdout.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - no router could be reached/);
  } finally {
    child.kill('SIGKILL');
  }
}

describe('check with 300 routers down', () => {
  it('read with stderr merged into stdout: the answer first, then at most a page of log lines, the rest counted', async () => {
    assertBuilt();
    const config = await deadRouters(300);
    // One pipe for both, as a monitoring system that merges them reads it.
    const child = spawn('sh', ['-c', `exec "${process.execPath}" "${MAIN}" check --config "${config}" --timeout 20 2>&1`], { stdio: ['ignore', 'pipe', 'ignore'] });
    let merged = '';
    child.stdout.on('data', (chunk: Buffer) => (merged += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(2);
    const lines = merged.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - no router could be reached: r0 \(connect\)/);
    const logs = lines.filter((line) => line.startsWith('{'));
    // Every log line after the answer's last line (its performance data).
    const lastAnswerLine = lines.findLastIndex((line) => line !== '' && !line.startsWith('{'));
    expect(lines.findIndex((line) => line.startsWith('{'))).toBeGreaterThan(lastAnswerLine);
    // Lines and the note together.
    const logBytes = logs.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(logBytes).toBeLessThanOrEqual(MAX_CHECK_LOG_BYTES);
    expect(logs.length).toBeGreaterThan(1);
    const note = JSON.parse(logs.at(-1) ?? '{}') as { dropped?: number; msg?: string };
    expect(note.dropped).toBeGreaterThan(100);
    expect(note.msg).toMatch(/more log line\(s\) left out/);
    expect(merged).not.toContain('pw-check-logs-1');
  }, 60_000);

  it('with a stderr reader that takes nothing: answers within its deadline and exits', async () => {
    assertBuilt();
    const config = await deadRouters(300);
    // Never read: a pipe holds 64 KiB; the lines of 300 dead routers were eight times that.
    await expectCriticalWithin(config, 'pipe', 20_000);
  }, 60_000);
});

describe('check with a stderr pipe already full', () => {
  it('drops its log lines and exits at once, never waiting for the reader (it waited in the background until the reader went)', async () => {
    assertBuilt();
    const config = await deadRouters(20);
    const fifo = join(mkdtempSync(join(tmpdir(), 'check-full-')), 'stderr');
    execFileSync('mkfifo', [fifo]);
    // A reader that never reads, the child's end as a plain (blocking) writer, and the pipe filled to the brim
    // through a third, non-blocking, descriptor.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    try {
      // Pages while they fit, then single bytes: the last page's room is less than a page, not none.
      for (const size of [4096, 1]) {
        for (;;) {
          try {
            writeSync(filler, Buffer.alloc(size, 0x2e));
          } catch {
            break;
          }
        }
      }
      await expectCriticalWithin(config, writer, 8_000);
    } finally {
      closeSync(filler);
      closeSync(writer);
      closeSync(reader);
    }
  }, 60_000);
});

describe('the held log lines', () => {
  it('with the note on those left out, fit the cap', () => {
    const held = new HeldLogLines(MAX_CHECK_LOG_BYTES);
    const line = `${JSON.stringify({ level: 'warn', msg: 'x'.repeat(150) })}\n`;
    for (let i = 0; i < 1_000; i++) held.write(line);
    const text = held.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_CHECK_LOG_BYTES);
    const last = JSON.parse(text.trimEnd().split('\n').at(-1) ?? '{}') as { dropped?: number };
    expect(last.dropped).toBeGreaterThan(900);
  });
});
