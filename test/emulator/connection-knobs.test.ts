/**
 * The emulator's connection knobs (issue 14): the keep-alive timeout it announces and keeps, and how a
 * reconnecting client may resume its TLS session — through the API and the CLI flags.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { connect, type TLSSocket } from 'node:tls';
import { Agent, fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';

const AUTH = { authorization: `Basic ${Buffer.from('admin:').toString('base64')}` };

/** One fresh TLS connection (offering `session` when given): its protocol, whether it resumed, its session. */
function handshake(url: string, ca: string, session?: Buffer): Promise<{ protocol: string | null; reused: boolean; session: Buffer | undefined }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let latest: Buffer | undefined;
    const socket: TLSSocket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost', ...(session === undefined ? {} : { session }) });
    socket.on('session', (value: Buffer) => (latest = value));
    socket.once('secureConnect', () => {
      // A TLS 1.3 ticket comes after the handshake: ask for something so it arrives, then close.
      socket.write('GET /rest/system/identity HTTP/1.1\r\nHost: x\r\nAuthorization: ' + AUTH.authorization + '\r\nConnection: close\r\n\r\n');
    });
    socket.on('data', () => undefined);
    socket.once('end', () => resolve({ protocol: socket.getProtocol(), reused: socket.isSessionReused(), session: latest }));
    socket.once('error', reject);
  });
}

describe('emulator connection knobs', () => {
  it('announces and applies keepAliveSeconds', async () => {
    const emulator = await startEmulator({ keepAliveSeconds: 7, routers: [{ name: 'r' }] });
    const agent = new Agent({ connect: { ca: emulator.ca } });
    try {
      const response = await fetch(`${emulator.routers[0]?.url ?? ''}/rest/system/identity`, { headers: AUTH, dispatcher: agent });
      await response.arrayBuffer();
      expect(response.headers.get('keep-alive')).toBe('timeout=7');
    } finally {
      await agent.close();
      await emulator.close();
    }
  });

  it.each([
    ['tickets', 'TLSv1.3', true],
    ['cache', 'TLSv1.2', true],
    ['off', 'TLSv1.3', false],
  ] as const)('tlsSessionResumption %s: %s, a second connection offering the session resumes: %s, and stats count it', async (mode, protocol, resumes) => {
    const emulator = await startEmulator({ tlsSessionResumption: mode, routers: [{ name: 'r' }] });
    const router = emulator.routers[0];
    if (router === undefined) throw new Error('no router');
    try {
      const first = await handshake(router.url, emulator.ca);
      expect(first.protocol).toBe(protocol);
      const second = await handshake(router.url, emulator.ca, first.session);
      expect(second.reused).toBe(resumes);
      expect(router.stats.connections).toBe(2);
      expect(router.stats.resumed).toBe(resumes ? 1 : 0);
    } finally {
      await emulator.close();
    }
  });

  it('takes --keep-alive and --tls-resumption on the command line', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/emulator/cli.ts', '--routers', '1', '--peers', '1', '--keep-alive', '9s', '--tls-resumption', 'cache'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line);
        if (line.startsWith('ca ')) break;
      }
      const url = (lines[0] ?? '').split(' ')[1] ?? '';
      const ca = readFileSync((lines[1] ?? '').slice(3), 'utf8');
      const agent = new Agent({ connect: { ca } });
      const response = await fetch(`${url}/rest/system/identity`, { headers: AUTH, dispatcher: agent });
      await response.arrayBuffer();
      await agent.close();
      expect(response.headers.get('keep-alive')).toBe('timeout=9');
      expect((await handshake(url, ca)).protocol).toBe('TLSv1.2');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 20_000);
});
