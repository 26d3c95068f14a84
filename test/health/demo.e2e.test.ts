/**
 * The demo scenario end to end: its stale, never-connected and disabled peers, lossy pings and the interface that
 * fails the set-up audit, as /health, /metrics and the verdict log show them after one collection.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { demoConfig } from '../../src/cli/demo-config.js';
import { configWarnings } from '../../src/config/warnings.js';
import type { HealthReport, RouterHealth } from '../../src/health/types.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
let report: HealthReport;
let demoWarnings: string[];
const logs = captureLogs();

beforeAll(async () => {
  emulator = await startEmulator({ scenario: 'demo' });
  const config = demoConfig(emulator, { listen: '127.0.0.1:0', caFile: writeCa(emulator) });
  demoWarnings = configWarnings(config).map((problem) => `${problem.path}: ${problem.message}`);
  // The app logs verdict changes itself (src/app.ts wires the watcher).
  app = createApp(config, { logger: logs.logger, jitter: false });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  await app.collectOnce();
  const response = await fetch(`${base}/health`);
  expect(response.status).toBe(503);
  report = (await response.json()) as HealthReport;
});

// The demo is a user's first look: a warning about its own configuration (its btest password was its user name)
// reads as something the user did wrong.
it("the demo's configuration draws no warning", () => {
  expect(demoWarnings).toEqual([]);
});

afterAll(async () => {
  await app.stop();
  await closeServer(server, 1_000);
  await emulator.close();
});

function router(name: string): RouterHealth {
  const found = report.routers.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no router ${name} in /health`);
  return found;
}

describe('the demo scenario in /health', () => {
  it('hq: the dead keepalive link is down and critical; idle and never-connected road warriors are not (no exclude_peers)', () => {
    const hq = router('hq');
    expect(hq.status).toBe('critical');
    const peer = (name: string) => hq.peers.find((candidate) => candidate.name === name);
    const dead = peer(DEMO_FACTS.deadLink.name);
    expect(dead).toMatchObject({ state: 'down', reason: 'stale', healthy: false, expected: true, status: 'critical', publicKey: DEMO_FACTS.deadLink.publicKey });
    // Due 180 s + 25 s keepalive + 5 s after its last handshake, which was 240 s before start.
    const due = Date.parse(dead?.handshakeExpectedBy ?? '') - Date.parse(dead?.latestHandshake ?? '');
    expect(due).toBe(210_000);
    expect(peer(DEMO_FACTS.stalePeer.name)).toMatchObject({ state: 'idle', reason: 'idle', healthy: true, expected: false, status: 'ok', handshakeExpectedBy: null });
    expect(peer(DEMO_FACTS.stalePeer.name)?.handshakeAgeSeconds).toBeGreaterThanOrEqual(DEMO_FACTS.stalePeer.lastHandshakeAgoSeconds);
    expect(peer(DEMO_FACTS.neverPeer.name)).toMatchObject({ state: 'never', reason: 'never_not_expected', healthy: true, status: 'ok', latestHandshake: null });
    expect(peer(DEMO_FACTS.freshPeer.name)).toMatchObject({ state: 'up', reason: 'ok', healthy: true, expected: true });
    expect(peer(DEMO_FACTS.goingStalePeer.name)).toMatchObject({ reason: 'ok', healthy: true });
    expect(hq.reasons.filter((reason) => reason.includes('wg-roadwarriors'))).toEqual([]);
  });

  it('hq: a ping that gets nothing back is critical; a lossy one is judged by the loss of its last run', () => {
    const pings = router('hq').pings;
    expect(pings.find((ping) => ping.target === DEMO_FACTS.ping.timeout.target)).toMatchObject({ lossRatio: 1, status: 'critical' });
    // Which of 3 packets the emulator loses is random: check the verdict follows the measured loss.
    const lossy = pings.find((ping) => ping.target === DEMO_FACTS.ping.lossy.target);
    const loss = lossy?.lossRatio ?? NaN;
    expect(lossy?.status).toBe(loss === 0 ? 'ok' : loss < 0.5 ? 'degraded' : 'critical');
  });

  it('branch-1: the disabled peer is reported but not judged', () => {
    const peer = router('branch-1').peers.find((candidate) => candidate.publicKey === DEMO_FACTS.disabledPeer.publicKey);
    expect(peer).toMatchObject({ name: DEMO_FACTS.disabledPeer.name, judged: false, healthy: true, reason: 'disabled', status: 'ok' });
  });

  it('branch-2: wg-lab fails firewall_input with the console command that fixes it; every other check passes everywhere', () => {
    const { router: name, interface: iface, check } = DEMO_FACTS.failingAudit;
    const lab = router(name).interfaces.find((candidate) => candidate.name === iface);
    expect(lab?.status).toBe('degraded');
    const failing = lab?.setup?.find((candidate) => candidate.check === check);
    expect(failing?.ok).toBe(false);
    expect(failing?.detail).toContain('defconf: drop all not coming from LAN');
    expect(failing?.fix).toMatch(/^\/ip firewall filter add chain=input action=accept protocol=udp dst-port=51820 place-before=\*[0-9A-F]+ comment="WireGuard wg-lab"$/);
    const others = report.routers.flatMap((r) =>
      r.interfaces.flatMap((i) => (i.setup ?? []).filter((c) => !(r.name === name && i.name === iface && c.check === check)).map((c) => [r.name, i.name, c.check, c.ok])),
    );
    expect(others.length).toBeGreaterThanOrEqual(4 * 4);
    expect(others.filter(([, , , ok]) => ok !== true)).toEqual([]);
  });
});

describe('the demo scenario in /metrics and the log', () => {
  it('exports the audit per interface and check, and the exposition passes promtool', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('routeros_wireguard_interface_setup_ok{router="branch-2",interface="wg-lab",check="firewall_input"} 0\n');
    expect(text).toContain('routeros_wireguard_interface_setup_ok{router="hq",interface="wg-branches",check="firewall_forward"} 1\n');
    const { code, output } = await promtoolCheckMetrics(text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('logs each problem once, in words an on-call engineer can act on', () => {
    const messages = logs.lines().filter((line) => line['component'] === 'health').map((line) => String(line['msg']));
    expect(messages).toContainEqual(expect.stringMatching(/^peer branch-3 on hq\/wg-branches stale since \S+ \(last handshake 4m(\d{1,2}s)? ago\)$/));
    // Road warriors asleep or never connected are no news.
    expect(messages.filter((message) => message.includes('wg-roadwarriors'))).toEqual([]);
    expect(messages).toContainEqual(expect.stringMatching(/^set-up check firewall_input fails on branch-2\/wg-lab: .*Fix: \/ip firewall filter add/));
    expect(new Set(messages).size).toBe(messages.length);
  });
});
