/**
 * A router or a proxy that echoes the password or the Authorization header into the data it serves (a name, a
 * comment, a board name) must not put it in a scrape, /health or check's output. The logs redact such text as
 * `[REDACTED]`; a label value or a peer's name redacts each secret as `[REDACTED:<tag>]`, a keyed digest, so names
 * differing only in what is redacted stay distinct series, and /health names a peer as its labels do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapInterfaces } from '../../src/collectors/interface.js';
import { mapSystem } from '../../src/collectors/system.js';
import { routerLabel } from '../../src/metrics/family.js';
import { escapeLabelValue, labelText } from '../../src/metrics/text.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { formatCheck } from '../../src/health/nagios.js';
import { peerDisplayName } from '../../src/health/format.js';
import { basicEncoding, registerCredentials } from '../../src/util/redact.js';
import { sampleText } from '../collectors/sample-text.js';
import pino from 'pino';
import { COLLECTOR_NAMES } from '../../src/config/types.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { testConfig, testRouter } from '../helpers/config.js';
import { peerRecord, setup, systemOk, T0, wireguard, WG_UP, SITE_LINKS } from '../health/snapshots.js';

const PASSWORD = 'Hunter2 S3cr@t/Pa&ss<x>"q';
const OTHER = 'Rotated-Pw-0192837465';
registerCredentials('monitor', PASSWORD);
registerCredentials('monitor', OTHER);
const BASIC = `Basic ${basicEncoding('monitor', PASSWORD)}`;
const FORMS = [PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD), BASIC, basicEncoding('monitor', PASSWORD).slice(8)];

function expectNoSecret(text: string): void {
  for (const form of [PASSWORD, OTHER, basicEncoding('monitor', PASSWORD).slice(8), basicEncoding('monitor', OTHER).slice(8), 'S3cr@t', 'Pa&ss']) {
    expect(text).not.toContain(form);
  }
}

describe('secrets echoed into router data', () => {
  it('are not written as label values, and names that differ only in the secret stay two series', () => {
    const result = mapInterfaces(
      [
        { name: PASSWORD, type: 'ether', running: 'true', comment: BASIC },
        { name: `wan-${PASSWORD}`, type: 'ether', running: 'true' },
        { name: `wan-${OTHER}`, type: 'ether', running: 'true' },
      ],
      routerLabel('hq'),
      testRouter().interfaces,
    );
    const out = sampleText(result.samples);
    expectNoSecret(out);
    const running = out.split('\n').filter((line) => line.startsWith('routeros_interface_running{'));
    expect(running).toHaveLength(3);
    expect(new Set(running).size).toBe(3);
    expect(out).toMatch(/interface="wan-\[REDACTED:[0-9a-f]{8}\]"/);
    expect(out).toMatch(/comment="Basic bW9uaXRv\[REDACTED:[0-9a-f]{8}\]"/);
  });

  it('a discovered target\'s name is written as typed, never scrubbed: a /probe target typed with guesses must not say which are passwords (found by review)', () => {
    // A discovered target's name is what its /probe client typed; scrubbing it answered, per guess, whether it
    // was one of the process's passwords. The router's own text in the same series is still scrubbed, and so is
    // a configured router's name (a password pasted where the name belongs).
    const typed = `admin-${OTHER}-office1.branch.example.net`;
    const label = routerLabel(typed, {}, true);
    expect(label).toBe(`router="${typed}"`);
    expect(routerLabel(typed)).toMatch(/^router="admin-\[REDACTED:[0-9a-f]{8}\]-office1\.branch\.example\.net"$/);
    const result = mapInterfaces([{ name: `wan-${OTHER}`, type: 'ether', running: 'true' }], label, testRouter().interfaces);
    const running = sampleText(result.samples)
      .split('\n')
      .filter((line) => line.startsWith('routeros_interface_running{'));
    expect(running).toEqual([expect.stringMatching(new RegExp(`^routeros_interface_running\\{router="${typed}",interface="wan-\\[REDACTED:[0-9a-f]{8}\\]"`))]);
    // Still bounded and escaped as every label value.
    expect(routerLabel('q"\\\n', {}, true)).toBe('router="q\\"\\\\\\n"');
    expect(routerLabel('x'.repeat(5_000), {}, true).length).toBeLessThan(1_100);
  });

  it('the scheduler writes a discovered target\'s name as typed and a configured router\'s scrubbed', async () => {
    const name = `x-${OTHER}`;
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((collector) => [collector, collector === 'system']));
    const config = testConfig({ defaults: { username: 'u', password: 'p', collectors }, routers: [{ name, url: 'https://192.0.2.1' }] });
    for (const [discovered, expected] of [
      [true, `routeros_collector_backoff_seconds{router="${name}",collector="system"} 0`],
      [false, 'routeros_collector_backoff_seconds{router="x-[REDACTED:'],
    ] as const) {
      const store = new SnapshotStore();
      const scheduler = new Scheduler({ store, logger: pino({ level: 'silent' }), clientFor: () => new FakeClient(), triggerFactory: new ManualTriggers().factory, jitter: false });
      scheduler.load(config, discovered ? new Set([name]) : new Set());
      expect(new Exposition(store, new SelfMetrics({ version: 'test' })).routerText('text')).toContain(expected);
      await scheduler.stop();
    }
  });

  it('are redacted in the system info a proxy rewrote', () => {
    const result = mapSystem({ 'board-name': PASSWORD, architecture: BASIC, version: `7.16 (${PASSWORD})`, uptime: '1h', 'cpu-load': '1' }, routerLabel('hq'), T0);
    expectNoSecret(sampleText(result.samples));
  });

  it('a peer named with the password: /health and check name it as its labels do, without the secret', () => {
    const router = testRouter({ name: 'hq' }, SITE_LINKS);
    const peers = [peerRecord(PASSWORD, '1h'), peerRecord(`site-${OTHER}`, '2h')];
    const evaluation = evaluateRouter(router, [systemOk(), wireguard(router, [WG_UP], peers)], T0);
    const health = JSON.stringify(evaluation.health);
    expectNoSecret(health);
    expect(evaluation.health.peers.map((peer) => peer.name)).toEqual([labelText(PASSWORD), labelText(`site-${OTHER}`)]);
    expect(evaluation.health.status).toBe('critical');
    const check = formatCheck({ report: { status: evaluation.health.status, checkedAt: '', summary: '', routers: [evaluation.health] }, evaluations: [evaluation] } as never, [router]);
    expectNoSecret(JSON.stringify(check));
    expect(JSON.stringify(check)).toContain('[REDACTED:');
  });

  it('a peer without a name whose key holds the password: /health, check and the verdict never show its start (found by review)', () => {
    // Named by its key's first 8 characters, cut before redaction: a cut piece of a password is no secret to redact.
    const router = testRouter({ name: 'hq' }, SITE_LINKS);
    for (let at = 0; at <= 4; at++) {
      const key = `${'AAAAAAAA'.slice(0, at)}${OTHER}0000000000000000=`;
      const peers = [peerRecord('', undefined, { 'public-key': key, 'persistent-keepalive': '25s' })];
      const evaluation = evaluateRouter(router, [systemOk(), wireguard(router, [WG_UP], peers)], T0);
      const check = formatCheck({ report: { status: evaluation.health.status, checkedAt: '', summary: '', routers: [evaluation.health] }, evaluations: [evaluation] } as never, [router]);
      for (const text of [JSON.stringify(evaluation.health), JSON.stringify(check), peerDisplayName('', key)]) {
        // What a cut at 8 characters kept of it: its first 8 - at characters.
        expect(text, `key with the password at ${at}`).not.toContain(OTHER.slice(0, 8 - at));
      }
    }
  });

  it('the set-up check\'s details and fixes in /health name the interface redacted too', () => {
    const router = testRouter({ name: 'hq', collectors: { wireguard_setup: true } }, SITE_LINKS);
    const records = { interfaces: [{ name: `wg-${PASSWORD}`, 'listen-port': '13231', running: 'true', disabled: 'false' }], peers: [], addresses: [], routes: [], filter: [] };
    const evaluation = evaluateRouter(router, [systemOk(), setup(records)], T0);
    const health = JSON.stringify(evaluation.health);
    expect(health).toContain('[REDACTED:');
    expectNoSecret(health);
  });

  it('a secret split by characters that show nothing is redacted in a label; names with such characters and no secret stay', () => {
    for (const invisible of ['\u00ad', '\u200b', '\u034f', '\u2060']) {
      const split = `${PASSWORD.slice(0, 5)}${invisible}${PASSWORD.slice(5)}`;
      expect(escapeLabelValue(`wan ${split}`)).toMatch(/^wan \[REDACTED:[0-9a-f]{8}\]$/);
    }
    expect(escapeLabelValue('soft\u00adhyphen caf\u00e9 \u{1f6f0}\ufe0f')).toBe('soft\u00adhyphen caf\u00e9 \u{1f6f0}\ufe0f');
  });

  it('a value of megabytes is redacted at the cost of what is shown: the password a million times, in milliseconds', () => {
    const many = PASSWORD.repeat(1_000_000);
    const started = performance.now();
    const label = labelText(many);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(label.length).toBeLessThanOrEqual(1_024);
    expect(label).toMatch(/^(\[REDACTED:[0-9a-f]{8}\])+[^…]*…[0-9a-f]{16}$/);
    expectNoSecret(label);
    // A secret running on past the redacted window leaves no beginning behind.
    const straddling = labelText(`${'x'.repeat(1_030)}${PASSWORD}${'y'.repeat(10_000)}`);
    expect(straddling).not.toContain(PASSWORD.slice(0, 4));
  });

  it('any text around any form of a secret: never written, the same text always the same label, distinct texts distinct', () => {
    const piece = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...FORMS, OTHER, 'Basic', 'authorization: '));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 5 }), fc.array(piece, { minLength: 1, maxLength: 5 }), (a, b) => {
        const [x, y] = [a.join(''), b.join('')];
        const [ex, ey] = [escapeLabelValue(x), escapeLabelValue(y)];
        for (const form of [PASSWORD, OTHER, basicEncoding('monitor', PASSWORD).slice(8)]) {
          expect(ex).not.toContain(form);
        }
        expect(escapeLabelValue(x)).toBe(ex);
        // Distinct texts stay distinct, unless they differ only in characters the format cannot carry (controls,
        // which escapeLabelValue writes as U+FFFD whatever the secret).
        // eslint-disable-next-line no-control-regex
        const plain = (text: string): string => text.replace(/[\x00-\x1f\x7f\uD800-\uDFFF]/g, '\uFFFD');
        if (plain(x) !== plain(y)) expect(ex).not.toBe(ey);
      }),
      { numRuns: 2_000 },
    );
  });
});
