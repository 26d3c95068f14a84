/**
 * `check` is a Nagios plugin: whatever happens, its exit code is 0–3 and matches the first word on stdout. An error
 * nobody awaited (a library's late rejection, an `error` event nobody listens to) took Node's default: exit 1, read
 * as WARNING, with a stack on stderr and no status line (found by review). Such an error is injected here into the
 * real CLI (`--import` of a module that raises it while the check waits on a router that answers nothing).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, MAIN } from '../helpers/cli.js';
import { startSilentRouter, type SilentRouter } from '../helpers/silent-router.js';

const PASSWORD = 'pw-check-crash-1';
let silent: SilentRouter;
let dir: string;

beforeAll(async () => {
  silent = await startSilentRouter();
  dir = mkdtempSync(join(tmpdir(), 'check-crash-'));
  writeFileSync(join(dir, 'config.yml'), ['defaults:', '  username: monitor', `  password: "${PASSWORD}"`, '  timeout: 5s', 'routers:', `  - { name: hq, url: "${silent.url}" }`, ''].join('\n'));
});

afterAll(() => {
  silent.close();
});

/** The CLI's `check` with `inject` (a module's source) imported first; its exit code and output. */
function checkWith(inject: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  assertBuilt();
  const module = join(dir, `inject-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(module, inject);
  const child = spawn(process.execPath, ['--import', module, MAIN, 'check', '--config', join(dir, 'config.yml'), '--timeout', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('check when an error nobody awaited is raised', () => {
  it('a rejection while it waits on a router: UNKNOWN on stdout and exit 3, the message redacted, not exit 1 with no status line', async () => {
    // Raised once the check has connected to the router (which answers nothing, so the check is still waiting).
    const { code, stdout } = await checkWith(
      `import net from 'node:net';\nconst connect = net.Socket.prototype.connect;\nlet raised = false;\nnet.Socket.prototype.connect = function (...args) {\n  if (!raised) { raised = true; setImmediate(() => Promise.reject(new Error('late failure, password ${PASSWORD}'))); }\n  return connect.apply(this, args);\n};\n`,
    );
    expect({ code, first: stdout.split('\n')[0] }).toEqual({ code: 3, first: 'ROUTEROS UNKNOWN - check failed: late failure, password [REDACTED]' });
    expect(stdout).not.toContain(PASSWORD);
  }, 20_000);

  it('an uncaught exception after the answer is written: the answer and its exit code stand', async () => {
    // Thrown once the answer (the router's timeout at the 4 s deadline: CRITICAL) has gone to stdout.
    const { code, stdout, stderr } = await checkWith(
      `const write = process.stdout.write.bind(process.stdout);\nprocess.stdout.write = (chunk, ...rest) => {\n  const done = write(chunk, ...rest);\n  if (String(chunk).startsWith('ROUTEROS ')) setImmediate(() => { throw new Error('after the answer'); });\n  return done;\n};\n`,
    );
    const first = stdout.split('\n')[0] ?? '';
    expect(first).toMatch(/^ROUTEROS (CRITICAL|UNKNOWN) - /);
    expect(code).toBe(first.startsWith('ROUTEROS CRITICAL') ? 2 : 3);
    expect(stdout.match(/^ROUTEROS /gm)).toHaveLength(1);
    expect(stderr).toContain('after the answer');
  }, 20_000);
});
