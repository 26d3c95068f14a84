/**
 * The daemon as PID 1 (a container without an init, as a bare Kubernetes pod runs it): the kernel ignores a signal
 * PID 1 has no listener for, so a SIGTERM while the daemon started (its modules load for half a second, more on a
 * large config) was lost and the pod waited out its grace period for SIGKILL (found by review). Run here in a PID
 * namespace of its own (unshare; as another user than root, inside a user namespace of its own too), as PID 1 there.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { tempFile } from '../helpers/emulator-config.js';
import { unusedPort } from '../helpers/ports.js';
import { startSilentRouter } from '../helpers/silent-router.js';

/** The one child of a process (unshare --fork's: the daemon, PID 1 in its namespace), once it has one. */
function childOf(pid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return children === '' ? undefined : Number(children.split(' ')[0]);
  } catch {
    return undefined;
  }
}

/** unshare's namespaces: a PID namespace; as another user than root, in a user namespace of its own too. */
function namespaces(): string[] {
  return process.getuid?.() === 0 ? ['--pid'] : ['--user', '--map-root-user', '--pid'];
}

describe('the daemon as PID 1', () => {
  it('ends at a SIGTERM that comes while it starts, with 143 as the default would give elsewhere', async () => {
    assertBuilt();
    const port = await unusedPort();
    const config = tempFile('pid1.yml', [`listen: "127.0.0.1:${port}"`, 'defaults:', '  username: monitor', '  password: "pw"', 'routers:', '  - { name: hq, url: "https://127.0.0.1:1" }', ''].join('\n'));
    const unshare = spawn('unshare', [...namespaces(), '--fork', '--kill-child', process.execPath, MAIN, '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    unshare.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => unshare.once('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    // A SIGTERM every 5 ms from the moment the daemon exists: those before Node runs any of the exporter are
    // ignored as PID 1's always are; the first after it listens must end the start. Without that listener the
    // start went on, and the first SIGTERM after the daemon's own shutdown handler was on stopped it (exit 0).
    try {
      while (!done) {
        const daemon = childOf(unshare.pid ?? 0);
        if (daemon !== undefined) {
          try {
            process.kill(daemon, 'SIGTERM');
          } catch {
            // Gone already.
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(await exited).toBe(143);
      // Stopped before it started: it never said so.
      expect(stdout).not.toContain('routeros-exporter started');
    } finally {
      unshare.kill('SIGKILL');
    }
  }, 30_000);
});

describe('once and check as PID 1', () => {
  it.each([
    ['once', [] as string[]],
    ['check', ['--timeout', '40']],
  ])('%s ends at a SIGTERM while it waits for a router, with 143 (it ran on to its timeout, or the deadline)', async (command, extra) => {
    assertBuilt();
    const silent = await startSilentRouter();
    const config = tempFile('pid1-run.yml', ['defaults:', '  username: monitor', '  password: "pw"', '  timeout: 14s', 'routers:', `  - { name: hq, url: "${silent.url}" }`, ''].join('\n'));
    const unshare = spawn('unshare', [...namespaces(), '--fork', '--kill-child', process.execPath, MAIN, command, '--config', config, ...extra], { stdio: ['ignore', 'ignore', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => unshare.once('exit', resolve));
    try {
      // Under way: it holds a connection to the router, which answers nothing for 14 s.
      await expect.poll(() => silent.connections(), { timeout: 20_000 }).toBeGreaterThan(0);
      const daemon = childOf(unshare.pid ?? 0);
      expect(daemon).toBeDefined();
      const sent = Date.now();
      process.kill(daemon ?? 0, 'SIGTERM');
      expect(await exited).toBe(143);
      expect(Date.now() - sent).toBeLessThan(10_000);
    } finally {
      unshare.kill('SIGKILL');
      silent.close();
    }
  }, 60_000);
});
