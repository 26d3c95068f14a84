/** The routeros-emulator command: prints routers and the CA, serves them, exits 0 on SIGTERM/SIGINT. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { tlsFolder } from '../../src/emulator/tls.js';
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

  it.each([
    [['--port', '65535', '--routers', '3'], '--port 65535 leaves no room for 3 routers on ports 65535–65537'],
    [['--port', '65534'], '--port 65534 leaves no room for 3 routers'],
    [['--port', '70000'], '--port must be a whole number from 0 to 65535, not "70000"'],
    [['--routers', '0'], '--routers must be a whole number from 1 to 10000, not "0"'],
    [['--routers', '1e9'], '--routers must be a whole number from 1 to 10000, not "1e9"'],
    [['--interfaces', '200'], '--interfaces must be a whole number from 1 to 150'],
    [['--peers', '70000'], '--peers 70000 is more than 64000 per interface (1)'],
    [['--command-timeout', '2h'], '--command-timeout must be a duration above 0 and at most 1h'],
    [['--keep-alive', '0s'], '--keep-alive must be a duration above 0 and at most 1h'],
    [['--tls-resumption', 'sometimes'], '--tls-resumption must be tickets, cache, off, not "sometimes"'],
    [['--ca', 'ca.pem'], '--ca goes with --cert and --key'],
    [['--cert', 'no-such.pem', '--key', 'no-such.key'], '--cert "no-such.pem": ENOENT'],
  ])('refuses %j with one line and the usage, exit 2, no stack trace', async (args, reason) => {
    const child = run(args);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exitCode(child)).toBe(2);
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toContain(`routeros-emulator: ${reason}`);
    expect(lines.slice(1).join('\n')).toMatch(/^usage: routeros-emulator/);
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 20_000);

  it('a port already in use is one line and exit 1, not a stack trace', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const child = run(['--port', String(port), '--routers', '1']);
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      expect(await exitCode(child)).toBe(1);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toContain('EADDRINUSE');
    } finally {
      holder.close();
    }
  }, 20_000);
});

/** The certificate a router serves, as its SHA-256 fingerprint, trusting only `ca`. */
function servedFingerprint(url: string, ca: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once('error', reject);
  });
}

describe('routeros-emulator --tls-dir', () => {
  it('keeps its CA and certificate across restarts: a client trusting the first start\'s CA connects to the second', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'routeros-lab-')), 'tls');
    try {
      const starts: { ca: string; caFile: string; fingerprint: string; url: string }[] = [];
      for (let i = 0; i < 2; i++) {
        const child = run(['--tls-dir', dir, '--routers', '1', '--peers', '1']);
        const exited = exitCode(child);
        const lines = await banner(child);
        const caFile = (lines.at(-1) ?? '').slice(3);
        const url = (lines[0] ?? '').split(' ')[1] ?? '';
        // The first start's CA text, read before the second start: what a config's ca_file holds.
        const ca = starts[0]?.ca ?? readFileSync(caFile, 'utf8');
        starts.push({ ca, caFile, url, fingerprint: await servedFingerprint(url, ca) });
        const agent = new Agent({ connect: { ca } });
        const auth = { authorization: `Basic ${Buffer.from('admin:').toString('base64')}` };
        expect((await fetch(`${url}/rest/system/identity`, { headers: auth, dispatcher: agent })).status).toBe(200);
        await agent.close();
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
      expect(starts[0]?.caFile).toBe(join(dir, 'ca.pem'));
      expect(starts[1]?.caFile).toBe(join(dir, 'ca.pem'));
      expect(starts[1]?.fingerprint).toBe(starts[0]?.fingerprint);
      expect(existsSync(join(dir, 'ca.pem'))).toBe(true); // kept at exit, unlike the temporary one
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  }, 40_000);

  it('reissues the server certificate from the same CA when the names change or the file is damaged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routeros-lab-'));
    try {
      const first = await tlsFolder(dir, ['localhost', '127.0.0.1']);
      expect(first.notes).toEqual([`created a CA in ${join(dir, 'ca.pem')}`]);
      const ca = readFileSync(first.caFile, 'utf8');
      const again = await tlsFolder(dir, ['localhost', '127.0.0.1']);
      expect(again.notes).toEqual([]);
      expect(again.cert).toBe(first.cert);
      const wider = await tlsFolder(dir, ['localhost', '127.0.0.1', 'lab.example']);
      expect(wider.notes).toEqual(['issued a new server certificate from the same CA (it does not cover lab.example)']);
      expect(readFileSync(wider.caFile, 'utf8')).toBe(ca);
      const served = new X509Certificate(wider.cert);
      expect(served.checkHost('lab.example')).toBe('lab.example');
      expect(served.verify(new X509Certificate(ca).publicKey)).toBe(true);
      writeFileSync(join(dir, 'cert.pem'), 'garbage');
      const repaired = await tlsFolder(dir, ['localhost']);
      expect(repaired.notes).toEqual(['issued a new server certificate from the same CA (it does not parse)']);
      expect(readFileSync(repaired.caFile, 'utf8')).toBe(ca);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
