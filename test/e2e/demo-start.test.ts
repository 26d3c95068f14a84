/**
 * `demo` signalled while it starts: its temporary folder (the emulator's CA) is removed before the signal ends it,
 * and a SIGHUP then does not end it at all. Before, a Ctrl-C in that window left /tmp/routeros-demo-* behind and a
 * SIGHUP ended the demo (found by review).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { unusedPort } from '../helpers/ports.js';

/** The demo with a temporary folder of its own, and the moment its folder appears (the start's window opens). */
async function demoUntilItsFolder(): Promise<{ child: ReturnType<typeof spawn>; tmp: string; stderr: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  assertBuilt();
  const tmp = mkdtempSync(join(tmpdir(), 'demo-start-'));
  const port = await unusedPort();
  const hold = new URL('../helpers/hold-demo-start.mjs', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', hold, MAIN, 'demo', '--listen', `127.0.0.1:${port}`], { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // The start is held half a second once the folder is made (hold-demo-start.mjs): the signal comes within it.
  const until = Date.now() + 20_000;
  while (!readdirSync(tmp).some((name) => name.startsWith('routeros-demo-'))) {
    if (Date.now() > until) throw new Error(`the demo made no folder in 20 s: ${stderr}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { child, tmp, stderr: () => stderr, exited };
}

describe('demo signalled while it starts', () => {
  it('a Ctrl-C ends it without its temporary folder left behind', async () => {
    const { child, tmp, exited } = await demoUntilItsFolder();
    try {
      child.kill('SIGINT');
      // Ended by the signal itself, as its default does, once the folder is removed, when Node ran the listener
      // before the start was through; exit 0 when the start ended (it does without waiting on any I/O once the
      // folder is written) before Node looked at signals, and the daemon shut down as after any Ctrl-C. Before,
      // ended by the signal with the folder left behind.
      const ended = await exited;
      expect([{ code: null, signal: 'SIGINT' }, { code: 0, signal: null }]).toContainEqual(ended);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('a SIGHUP does not end it: it comes up, and a Ctrl-C then stops it cleanly', async () => {
    const { child, tmp, stderr, exited } = await demoUntilItsFolder();
    try {
      child.kill('SIGHUP');
      await expect.poll(stderr, { timeout: 20_000 }).toContain('demo is running');
      child.kill('SIGINT');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
