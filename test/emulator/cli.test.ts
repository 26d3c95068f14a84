/** The routeros-emulator command: prints routers and the CA, serves them, exits 0 on SIGTERM/SIGINT. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Agent, fetch } from 'undici';
import { describe, expect, it } from 'vitest';

const CLI = ['--import', 'tsx', 'src/emulator/cli.ts'];

function run(args: string[]): ChildProcess {
  return spawn(process.execPath, [...CLI, ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Lines up to and including the `ca …` line the CLI prints once it is listening. */
async function banner(child: ChildProcess): Promise<string[]> {
  const lines: string[] = [];
  const rl = createInterface({ input: child.stdout ?? process.stdin });
  for await (const line of rl) {
    lines.push(line);
    if (line.startsWith('ca ')) break;
  }
  return lines;
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('routeros-emulator CLI', () => {
  it('serves the scale scenario with --routers, answers with the printed CA, and exits 0 on SIGTERM', async () => {
    const child = run(['--routers', '2', '--interfaces', '1', '--peers', '3', '--command-timeout', '2s', '--control']);
    const exited = exitCode(child);
    const lines = await banner(child);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^scale-001 https:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toMatch(/^scale-002 https:\/\/127\.0\.0\.1:\d+$/);
    const caFile = (lines[2] ?? '').slice(3);
    const agent = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
    const url = (lines[0] ?? '').split(' ')[1] ?? '';
    const auth = { authorization: `Basic ${Buffer.from('admin:').toString('base64')}` };
    const peers = await fetch(`${url}/rest/interface/wireguard/peers`, { headers: auth, dispatcher: agent });
    expect(((await peers.json()) as unknown[]).length).toBe(3);
    const control = await fetch(`${url}/emulator/reboot`, { method: 'POST', headers: auth, dispatcher: agent });
    expect(control.status).toBe(204);
    const capped = await fetch(`${url}/rest/ping`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"address":"10.100.0.2"}', dispatcher: agent });
    expect(await capped.json()).toEqual({ detail: 'Session closed', error: 400, message: 'Bad Request' });
    await agent.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(caFile)).toBe(false); // the generated CA file is cleaned up
  }, 20_000);

  it('serves the demo scenario by default and exits 0 on SIGINT', async () => {
    const child = run([]);
    const exited = exitCode(child);
    const lines = await banner(child);
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['hq', 'branch-1', 'branch-2', 'ca']);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 20_000);

  it('exits 2 with usage on bad arguments', async () => {
    const child = run(['--port', 'eighty']);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exitCode(child)).toBe(2);
    expect(stderr).toMatch(/usage: routeros-emulator/);
  }, 20_000);
});
