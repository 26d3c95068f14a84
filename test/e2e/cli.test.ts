/**
 * The CLI as users run it (the built dist/main.js in a child process): exit codes, check-config, once,
 * signals (SIGTERM exits 0 within 10 s; SIGHUP with a broken config keeps the old one running).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { spawn } from 'node:child_process';
import { finished, MAIN, runCli, startCli } from '../helpers/cli.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { startSilentRouter } from '../helpers/silent-router.js';

let emulator: Emulator;
let caFile: string;

beforeAll(async () => {
  emulator = await startEmulator({
    routers: [
      { name: 'a', interfaces: [{ name: 'wg0' }], peers: [{ interface: 'wg0', name: 'p1', life: 'live' }] },
      { name: 'b', interfaces: [{ name: 'wg0' }] },
    ],
  });
  caFile = writeCa(emulator);
});

afterAll(async () => {
  await emulator?.close();
});

/** The daemon logs its URL when it listens (port 0 in tests: no fixed ports, no collisions). */
async function listeningUrl(child: ReturnType<typeof startCli>): Promise<string> {
  const find = (): string | undefined => /"url":"(http:[^"]+)"/.exec(child.output.stdout)?.[1];
  await expect.poll(find, { timeout: 15_000 }).toBeDefined();
  return find() ?? '';
}

function config(listen: string, routers = ['a', 'b']): string {
  return [
    `listen: "${listen}"`,
    'defaults:',
    '  username: admin',
    '  password: ""',
    '  timeout: 2s',
    `  tls: { ca_file: "${caFile}" }`,
    'routers:',
    ...routers.map((name) => `  - { name: ${name}, url: "${emulator.router(name).url}" }`),
  ].join('\n');
}

describe('routeros-exporter CLI', () => {
  it('--help exits 0; an unknown command or a missing config exits 2 with usage', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage:');
    const missing = await runCli([], { ROUTEROS_EXPORTER_CONFIG: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no config/);
  });

  it('check-config accepts a valid file and rejects an invalid one with every problem and its path', async () => {
    const good = tempFile('good.yml', config('127.0.0.1:0'));
    expect(await runCli(['check-config', good])).toMatchObject({ code: 0 });
    const bad = tempFile(
      'bad.yml',
      'defaults: { username: u, password: hunter2-secret }\nrouters:\n  - { name: a, url: "https://192.0.2.1", ping: [{ target: 10.0.0.1, count: 100, interval: 1s }] }\n  - { name: a, url: "ftp://x", timout: 5s }\n',
    );
    const result = await runCli(['check-config', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('routers[0].ping[0]');
    expect(result.stderr).toContain('routers[1].name');
    expect(result.stderr).toContain('routers[1].url');
    expect(result.stderr).toContain('routers[1].timout');
    expect(result.stderr + result.stdout).not.toContain('hunter2-secret');
  });

  it('an invalid web config file is a config error: check-config and the daemon exit 2 naming the key', async () => {
    const web = tempFile('web.yml', 'basic_auth_users:\n  prometheus: $2y$10$abcdefghijklmnopqrstuv\ntls_server_config: { cert_fil: x.pem }\n');
    const path = tempFile('c.yml', `web_config_file: "${web}"\n` + config('127.0.0.1:0'));
    const checked = await runCli(['check-config', path]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain('tls_server_config.cert_fil');
    const daemon = await runCli(['--config', path]);
    expect(daemon.code).toBe(2);
    expect(daemon.stderr).toContain('tls_server_config.cert_fil');
  });

  it('a listen address it cannot take exits 1 with one line naming it: in use, or a host name that does not resolve', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const taken = `127.0.0.1:${(holder.address() as AddressInfo).port}`;
      for (const listen of [taken, 'nosuchhost.invalid:9436']) {
        const result = await runCli(['--config', tempFile('listen.yml', config(listen))]);
        expect(result.code).toBe(1);
        // Which address, and the failure (it read `getaddrinfo ENOTFOUND nosuchhost.invalid`, without saying what that was).
        expect(result.stderr).toContain(`cannot listen on ${listen} (listen, --listen): `);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
    } finally {
      holder.close();
    }
  });

  it('once prints the exposition and exits 0 when every router answered, 1 when one did not', async () => {
    const ok = await runCli(['once', '--config', tempFile('c.yml', config('127.0.0.1:0'))]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('routeros_up{router="a"} 1');
    expect(ok.stdout).toContain('routeros_up{router="b"} 1');
    await emulator.router('b').stop();
    try {
      const failed = await runCli(['once', '--config', tempFile('c.yml', config('127.0.0.1:0'))]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('routeros_up{router="b"} 0');
      expect(failed.stdout).toContain('routeros_up{router="a"} 1');
    } finally {
      await emulator.router('b').start();
    }
  });

  it('SIGHUP with a broken config keeps the old one; a good one applies; SIGTERM exits 0 quickly', async () => {
    const path = tempFile('daemon.yml', config('127.0.0.1:0'));
    const child = startCli(['--config', path, '--web.enable-lifecycle']);
    const done = finished(child);
    try {
    const base = await listeningUrl(child);
    await expect.poll(async () => (await fetch(`${base}/-/ready`).catch(() => undefined))?.status, { timeout: 15_000 }).toBe(200);
    const metrics = async (): Promise<string> => (await fetch(`${base}/metrics`)).text();
    expect(await metrics()).toContain('routeros_up{router="b"} 1');

    writeFileSync(path, 'routers: [ { name: "broken" ');
    child.kill('SIGHUP');
    await expect.poll(metrics).toContain('routeros_exporter_config_last_reload_successful 0');
    expect(await metrics()).toContain('routeros_up{router="b"} 1');

    writeFileSync(path, config('127.0.0.1:0', ['a']));
    const reload = await fetch(`${base}/-/reload`, { method: 'POST' });
    expect(reload.status).toBe(200);
    expect(await metrics()).toContain('routeros_exporter_config_last_reload_successful 1');
    expect(await metrics()).not.toContain('router="b"');

    writeFileSync(path, 'nonsense: true\n');
    const refused = await fetch(`${base}/-/reload`, { method: 'POST' });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { source?: string };
    expect(JSON.stringify(body)).toContain('nonsense');
    // Which file was refused: the config itself here (a web config or a password file it names otherwise).
    expect(body.source).toBe(path);

    const started = Date.now();
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    const logLines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; source?: string });
    expect(logLines.some((line) => line.msg.includes('reload failed') && line.source === path)).toBe(true);
    expect(logLines.at(-1)?.msg).toBe('stopped');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('routeros-exporter with a router that never answers', () => {
  it('SIGTERM exits 0 at once although its connect waits out a 45 s timeout', async () => {
    const silent = await startSilentRouter();
    const path = tempFile(
      'silent.yml',
      [
        'listen: "127.0.0.1:0"',
        "defaults: { username: admin, password: '', timeout: 45s, schedules: { system: '0 * * * * *', interface: '0 * * * * *', wireguard: '0 * * * * *', health: '0 * * * * *' } }",
        'routers:',
        `  - { name: black, url: "${silent.url}" }`,
      ].join('\n'),
    );
    const child = startCli(['--config', path]);
    const done = finished(child);
    try {
      await listeningUrl(child);
      // Its first run is connecting (accepted, never answered).
      await expect.poll(() => silent.connections(), { timeout: 10_000 }).toBeGreaterThan(0);
      const started = Date.now();
      child.kill('SIGTERM');
      const result = await done;
      // It took the whole 45 s: the connect under way kept the stopped process alive.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result.code).toBe(0);
    } finally {
      child.kill('SIGKILL');
      silent.close();
    }
  }, 30_000);
});

describe('output to a reader that reads late', () => {
  it('check-config prints every problem of a large config through a pipe the reader leaves full for seconds', async () => {
    // 2,000 routers, each with a bad timeout: the first 500 problems are listed, each line starting with the file's
    // path, here a long one: ~150 KB, more than a pipe holds.
    const dir = join(dirname(tempFile('x', '')), 'a-folder-with-a-long-name'.repeat(8));
    mkdirSync(dir);
    const path = join(dir, 'large.yml');
    writeFileSync(path, ['defaults: { username: admin, password: x }', 'routers:', ...Array.from({ length: 2000 }, (_, i) => `  - { name: r${i}, url: "https://192.0.2.1:${1000 + i}", timeout: soon }`)].join('\n'));
    const full = await runCli(['check-config', path]);
    expect(Buffer.byteLength(full.stderr)).toBeGreaterThan(128 * 1024);
    expect(full.stderr).toContain('and 1500 more problem(s) not listed');
    expect(full.code).toBe(2);
    // A reader that starts after the exporter's 2 s grace: the shell's pipe holds 64 KiB, the rest waits in the
    // exporter, which must not exit before it is written (the exit cut the output at 65,536 bytes).
    const late = await new Promise<string>((resolve, reject) => {
      const shell = spawn('sh', ['-c', `"${process.execPath}" "${MAIN}" check-config "${path}" 2>&1 >/dev/null | (sleep 4; wc -c)`], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      shell.on('error', reject);
      shell.on('close', () => resolve(out));
    });
    expect(full.stderr).toContain('routers[499].timeout');
    expect(Number(late.trim())).toBe(Buffer.byteLength(full.stderr));
  }, 30_000);
});

describe('routeros-exporter demo', () => {
  it('refuses a bad --listen with one line and exit 2, before starting anything', async () => {
    const result = await runCli(['demo', '--listen', 'bad']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--listen');
  });

  it('shows every metric family within 30 s, and promtool accepts the exposition', async () => {
    const child = startCli(['demo', '--listen', '127.0.0.1:0']);
    const done = finished(child);
    try {
      await expect.poll(() => /metrics\s+(http:\S+)\/metrics/.exec(child.output.stderr)?.[1], { timeout: 15_000 }).toBeDefined();
      const base = /metrics\s+(http:\S+)\/metrics/.exec(child.output.stderr)?.[1] ?? '';
      // Every family but the errors counter, whose series appear at a reason's first failure (docs/metrics.md).
      const families = (await import('../../src/metrics/families.js')).FAMILIES.map((family) => family.name).filter(
        (name) => name !== 'routeros_collector_errors_total',
      );
      let text = '';
      await expect
        .poll(
          async () => {
            text = await (await fetch(`${base}/metrics`)).text().catch(() => '');
            return families.filter((name) => !text.includes(`\n${name}{`));
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toEqual([]);
      expect(child.output.stderr).toContain(`${base}/health`);
      const { promtoolCheckMetrics } = await import('../helpers/promtool.js');
      const lint = await promtoolCheckMetrics(text);
      expect(lint.output).toBe('');
      expect(lint.code).toBe(0);
    } finally {
      child.kill('SIGTERM');
      expect((await done).code).toBe(0);
    }
  }, 60_000);
});

