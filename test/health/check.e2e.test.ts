/**
 * `routeros-exporter check` end to end, in-process: a config file on disk, emulated routers over HTTPS,
 * one collection, and the Nagios plugin output and exit code.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { check, parseCheckTimeout, runCheck } from '../../src/cli/check.js';
import { parseCli } from '../../src/cli/args.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { startSilentRouter } from '../helpers/silent-router.js';
import { shardOf } from '../../src/scheduler/shard.js';

const PASSWORD = 'check-e2e-secret';
let emulator: Emulator;
let configPath: string;
let downPath: string;
let stuckPath: string;

function configFile(ca: string, routers: object[]): string {
  // JSON is YAML: the loader reads it like any config file.
  const config = { defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca }, health: { expect: { 'wg-branch': 'always' } } }, routers };
  return tempFile('routeros-exporter.yml', JSON.stringify(config, null, 2));
}

beforeAll(async () => {
  const peers = (stale: boolean) => [
    { interface: 'wg-branch', name: 'branch-1', life: 'live' as const, allowedAddress: ['10.10.0.2/32'] },
    ...(stale ? [{ interface: 'wg-branch', name: 'branch-2', life: 'stale' as const, staleForSeconds: 600, allowedAddress: ['10.10.0.3/32'] }] : []),
  ];
  emulator = await startEmulator({
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      { name: 'hq', interfaces: [{ name: 'wg-branch' }], peers: peers(true), ping: { '10.10.0.2': { kind: 'reachable', rttMs: 12 } } },
      { name: 'calm', interfaces: [{ name: 'wg-branch' }], peers: peers(false) },
      { name: 'gone' },
      { name: 'stuck', interfaces: [{ name: 'wg-branch' }], peers: peers(false) },
    ],
  });
  const ca = writeCa(emulator);
  configPath = configFile(ca, [
    {
      name: 'hq',
      url: emulator.router('hq').url,
      ping: [{ target: '10.10.0.2', name: 'branch-tunnel', interval: '100ms' }],
      // A 40 s bandwidth test: the check must not run it (it would hold the check for 40 s).
      bandwidth_test: [{ target: '10.10.0.2', duration: '40s', schedule: '0 3 * * *' }],
    },
    { name: 'calm', url: emulator.router('calm').url },
  ]);
  downPath = configFile(ca, [{ name: 'gone', url: emulator.router('gone').url }]);
  emulator.router('stuck').setFaults({ path: 'interface/wireguard/peers', hang: true });
  stuckPath = configFile(ca, [
    { name: 'calm', url: emulator.router('calm').url },
    { name: 'stuck', url: emulator.router('stuck').url, timeout: '10s' },
  ]);
  await emulator.router('gone').stop();
});

afterAll(async () => {
  await emulator.close();
});

describe('check', () => {
  it('answers UNKNOWN at its deadline, naming the routers it still waits for, and aborts them', async () => {
    const started = Date.now();
    const out = await check(stuckPath, undefined, { timeoutSeconds: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out.code).toBe(3);
    expect(out.text.split('\n')[0]).toBe('ROUTEROS UNKNOWN - check timed out after 1s, still waiting for stuck');
  });

  it('a router that does not answer at all is CRITICAL at the deadline, not UNKNOWN, and the check ends then', async () => {
    // Accepts TCP, answers nothing: each of its collectors waits out its 1 s timeout in turn, longer than the check.
    const silent = await startSilentRouter();
    const path = configFile(writeCa(emulator), [
      { name: 'calm', url: emulator.router('calm').url },
      { name: 'black', url: silent.url, timeout: '1s' },
    ]);
    try {
      const started = Date.now();
      // 6 s: calm must be read whole by then, on a machine other suites keep busy too (at 2.5 s it once was not,
      // and the answer named it as still waited for); black's turns take 1 s each, about 21 s in all.
      const out = await check(path, undefined, { timeoutSeconds: 6 });
      // Ends at its deadline, not when the silent router's turns run out (about 21 s before the fix).
      expect(Date.now() - started).toBeLessThan(12_000);
      expect(out.code).toBe(2);
      // Judged down on its failed system run; the others' turns are not waited for. (It was UNKNOWN, "still
      // waiting for black", and a real Nagios check of a powered-off router did not page.)
      expect(out.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - 1 router down: black (timeout)');
      // With another router still waited for, the page says so too.
      const both = configFile(writeCa(emulator), [
        { name: 'stuck', url: emulator.router('stuck').url, timeout: '10s' },
        { name: 'black', url: silent.url, timeout: '1s' },
      ]);
      const partly = await check(both, undefined, { timeoutSeconds: 2.5 });
      expect(partly.code).toBe(2);
      // Not "no router could be reached": stuck answers, and is still being read.
      expect(partly.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - 1 router down: black (timeout); check timed out after 2.5s, still waiting for stuck');
    } finally {
      silent.close();
    }
  });

  it('a router without the system collector that does not answer is CRITICAL at the deadline too (it stayed UNKNOWN)', async () => {
    const silent = await startSilentRouter();
    const path = configFile(writeCa(emulator), [{ name: 'black', url: silent.url, timeout: '1s', collectors: { system: false } }]);
    try {
      const out = await check(path, undefined, { timeoutSeconds: 2.5 });
      expect(out.code).toBe(2);
      expect(out.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - no router could be reached: black (timeout)');
    } finally {
      silent.close();
    }
  });

  it('takes --timeout as Nagios passes it (seconds) or as a duration, and refuses nonsense', () => {
    expect(() => parseCheckTimeout('30d')).toThrow(/longer than a day/);
    expect(parseCheckTimeout('30')).toBe(30);
    expect(parseCheckTimeout('1m30s')).toBe(90);
    expect(parseCheckTimeout('500ms')).toBe(0.5);
    expect(() => parseCheckTimeout('0')).toThrow(/more than 0/);
    expect(() => parseCheckTimeout('soon')).toThrow(/--timeout: .*not a duration/);
  });

  it('exits 2 with the stale peer on its first line, details and perfdata after (the acceptance case)', async () => {
    const started = Date.now();
    const out = await check(configPath);
    expect(Date.now() - started).toBeLessThan(20_000);
    const lines = out.text.trimEnd().split('\n');
    expect(out.code).toBe(2);
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: hq\/wg-branch\/branch-2 \(last handshake 10m(\d{1,2}s)? ago\)$/);
    expect(lines).toContainEqual(expect.stringMatching(/^\[CRITICAL\] hq\/wg-branch\/branch-2: down, last handshake 10m(\d{1,2}s)? ago \(due within 5m, expected always on\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^\[OK\] calm: up, last success \d{4}-\d\d-\d\dT.*; 1 interface, 1 peer \(1 judged\), 0 ping targets$/));
    const perfdata = lines.at(-1) ?? '';
    expect(perfdata).toMatch(/^\| /);
    expect(perfdata).toMatch(/'hq_wg-branch_branch-2_handshake_age'=6\d\ds;;300;0/);
    expect(perfdata).toMatch(/'hq_branch-tunnel_loss'=0%;0;@50:;0;100/);
    expect(perfdata).toMatch(/'hq_branch-tunnel_rtt'=[\d.]+ms;;;0/);
  });

  it('--router narrows it: OK and exit 0 for a router whose peers are fine', async () => {
    const out = await check(configPath, 'calm');
    expect(out.code).toBe(0);
    expect(out.text.split('\n')[0]).toBe('ROUTEROS OK - 1 router up, 1 interface running, 1 peer healthy');
  });

  it('--router as often as given checks every router named: CRITICAL for hq beside a calm one (the last alone was checked; found by review)', async () => {
    expect(parseCli(['check', '--config', configPath, '--router', 'hq', '--router', 'calm'], {}).router).toEqual(['hq', 'calm']);
    const out = await check(configPath, ['hq', 'calm']);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: hq\/wg-branch\/branch-2 /);
    expect(out.text).toMatch(/^\[OK\] calm: up/m);
    // One name not configured among them: UNKNOWN, not a check of the others alone.
    const partly = await check(configPath, ['calm', 'nope', 'gone-too']);
    expect(partly.code).toBe(3);
    expect(partly.text.split('\n')[0]).toBe(`ROUTEROS UNKNOWN - no router named "nope", "gone-too" in ${configPath}`);
  });

  it('checks the routers of its shard, as the daemon polls them: a replica\'s check looked at every router (found by review)', async () => {
    // A split of hq and calm: the smallest count that puts them in different shards.
    const count = [2, 3, 4, 5, 6, 7, 8].find((n) => shardOf('hq', n) !== shardOf('calm', n)) ?? 0;
    expect(count).toBeGreaterThan(0);
    const calmShard = `${shardOf('calm', count)}/${count}`;
    const calmOnly = await check(configPath, undefined, { shard: calmShard });
    expect(calmOnly.text.split('\n')[0]).toBe('ROUTEROS OK - 1 router up, 1 interface running, 1 peer healthy');
    expect(calmOnly.code).toBe(0);
    // hq (a stale peer) in its own shard: CRITICAL there.
    const hqOnly = await check(configPath, undefined, { shard: `${shardOf('hq', count)}/${count}` });
    expect(hqOnly.text.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: hq\/wg-branch\/branch-2 /);
    // A router named outside the shard: UNKNOWN, naming where it is, rather than OK for a router nobody looked at.
    const elsewhere = await check(configPath, ['hq'], { shard: calmShard });
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.text.split('\n')[0]).toBe(`ROUTEROS UNKNOWN - "hq" is in shard ${shardOf('hq', count)}/${count}, not in shard ${calmShard} of ${configPath}`);
    // A shard with none of the routers: UNKNOWN, not OK for nothing checked.
    const empty = [...Array(64).keys()].find((index) => shardOf('hq', 64) !== index && shardOf('calm', 64) !== index) ?? 0;
    const bad = await check(configPath, undefined, { shard: '3/2' });
    expect(bad.code).toBe(3);
    expect(bad.text.split('\n')[0]).toMatch(/^ROUTEROS UNKNOWN - --shard: shard "3\/2": index 3 must be 0 to 1/);
    const none = await check(configPath, undefined, { shard: `${empty}/64` });
    expect(none.code).toBe(3);
    expect(none.text.split('\n')[0]).toBe(`ROUTEROS UNKNOWN - shard ${empty}/64 leaves no router of ${configPath} to check: all 2 belong to other shards`);
  });

  it('UNKNOWN (3) for an unknown router name', async () => {
    const out = await check(configPath, 'nope');
    expect(out.code).toBe(3);
    expect(out.text).toBe(`ROUTEROS UNKNOWN - no router named "nope" in ${configPath}\nconfigured routers: hq, calm\n`);
  });

  it('UNKNOWN (3) for a config of profiles alone, saying where its routers come from (it read "no routers configured")', async () => {
    const config = {
      defaults: { username: 'monitor', password: PASSWORD },
      profiles: { branches: { targets: ['10.20.0.0/16'], ports: [443] } },
    };
    const path = tempFile('profiles-only.yml', JSON.stringify(config));
    const out = await check(path);
    expect(out.code).toBe(3);
    expect(out.text).toBe(
      `ROUTEROS UNKNOWN - ${path} lists no routers: its routers come from profiles, named by Prometheus on /probe\n` +
        "check takes the routers listed under `routers`; a probed target is judged in the daemon's /health (?router=NAME) and its verdict log.\n",
    );
  });

  it('CRITICAL (2) when nothing could be reached: a router down pages, as the plugin guidelines want', async () => {
    const out = await check(downPath);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - no router could be reached: gone (connect)');
  });

  it('UNKNOWN (3) for an invalid config, listing every problem with its path', async () => {
    const path = tempFile('bad.yml', 'routers:\n  - name: hq\n    url: ftp://x\n    colectors: {}\n');
    const out = await check(path);
    expect(out.code).toBe(3);
    const lines = out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^ROUTEROS UNKNOWN - invalid configuration ${path}: \\d+ problem\\(s\\)$`));
    expect(lines.slice(1).join('\n')).toContain('routers[0].url');
    expect(lines.slice(1).join('\n')).toContain('colectors');
  });

  it('runCheck prints the output on stdout and returns the exit code', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      const callback = rest.find((arg): arg is () => void => typeof arg === 'function');
      callback?.();
      return true;
    }) as typeof process.stdout.write);
    try {
      expect(await runCheck(configPath, ['calm'])).toBe(0);
      // --timeout as given on the command line; a bad one is UNKNOWN with the reason, not a crash.
      expect(await runCheck(stuckPath, undefined, '1')).toBe(3);
      expect(await runCheck(configPath, ['calm'], 'soon')).toBe(3);
    } finally {
      spy.mockRestore();
    }
    expect(written[0]).toMatch(/^ROUTEROS OK - /);
    expect(written[1]).toMatch(/^ROUTEROS UNKNOWN - check timed out after 1s, still waiting for stuck\n/);
    expect(written[2]).toMatch(/^ROUTEROS UNKNOWN - check failed: --timeout: "soon" is not a duration/);
  });
});
