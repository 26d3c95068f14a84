/**
 * Bad input never breaks output: random router names, interface and peer names, comments, keys and values
 * (control characters, quotes, backslashes, lone surrogates, odd number forms) go through every collector's
 * mapping, the snapshot store and the exposition in both formats. Every result must parse with the strict
 * parser, carry no non-finite value that came from a router, keep label values as sent (only what the format
 * cannot carry replaced by U+FFFD), and pass `promtool check metrics`.
 */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { RouterOsError } from '../../src/routeros/errors.js';
import { describe, expect, it } from 'vitest';
import { mapBandwidthTest } from '../../src/collectors/bandwidth-test.js';
import { mapPing } from '../../src/collectors/ping.js';
import { mapSystem, SYSTEM_PROPLIST } from '../../src/collectors/system.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { mapWireguardSetup, SETUP_PROPLISTS } from '../../src/collectors/wireguard-setup.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { routerLabel } from '../../src/metrics/family.js';
import { labelNameProblem } from '../../src/config/labels.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testRouter } from '../helpers/config.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition } from './exposition-parser.js';
import { parseOpenMetrics } from '../metrics/openmetrics-parser.js';

/** Characters that break naive exposition writers, mixed with ordinary ones. */
const NASTY = fc.constantFrom('a', 'Z', '0', ' ', '\\', '"', '\n', '\r', '\t', '\0', '\x1b', '\x7f', '\u0085', 'é', '€', '\u2028', '\uD800', '\uDFFF', '{', '}', '=', ',', '#', '😀');
const text = fc.oneof(
  fc.string({ unit: NASTY, maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  // Short strings of characters the format cannot carry as they are: distinct names that could come out alike.
  fc.string({ unit: fc.constantFrom('a', '\x01', '\x02', '\x7f', '\uD800', '\uDFFF'), maxLength: 2 }),
  fc.constantFrom('', 'wg0', 'wg0 ', 'peer1'),
);
/** What RouterOS might put where a number, duration or boolean belongs, and what it must never surprise us with. */
const value = fc.oneof(
  text,
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String),
  fc.constantFrom('1w2d3h4m5s', '12ms345us', '00:01:02', 'true', 'false', 'yes', 'no', 'NaN', 'Infinity', '-Infinity', '1e308', '-0', '5.3KiB', '0x1F', '', ' 7 '),
);
const record = (keys: readonly string[]): fc.Arbitrary<RouterRecord> =>
  fc.tuple(fc.record(Object.fromEntries(keys.map((key) => [key, value])), { requiredKeys: [] }), fc.dictionary(text, value, { maxKeys: 3 }))
    .map(([known, extra]) => ({ ...extra, ...known }) as RouterRecord);

const INTERFACE_KEYS = ['.id', 'name', 'public-key', 'listen-port', 'mtu', 'running', 'disabled', 'comment'];
const PEER_KEYS = ['.id', 'interface', 'public-key', 'name', 'comment', 'endpoint-address', 'endpoint-port', 'current-endpoint-address', 'current-endpoint-port', 'allowed-address', 'rx', 'tx', 'last-handshake', 'disabled'];
const PING_KEYS = ['seq', 'host', 'time', 'sent', 'received', 'packet-loss', 'min-rtt', 'avg-rtt', 'max-rtt', 'status'];
const BTEST_KEYS = ['status', 'rx-total-average', 'tx-total-average', 'lost-packets', 'duration'];

/** A router as it might answer every collector, with names that make peers, interfaces and targets collide. */
const routerReplies = fc.record({
  // Router names come from the config, which allows only safe names (the router label is never router-sent).
  router: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/),
  // The router's configured labels: names the config accepts (it refuses the exporter's own), any non-empty text.
  labels: fc.dictionary(
    fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/).filter((name) => labelNameProblem(name) === undefined),
    text.filter((v) => v !== ''),
    { maxKeys: 3 },
  ),
  system: record(SYSTEM_PROPLIST),
  interfaces: fc.array(record(INTERFACE_KEYS), { maxLength: 4 }),
  peers: fc.array(record(PEER_KEYS), { maxLength: 6 }),
  ping: fc.array(record(PING_KEYS), { maxLength: 3 }),
  pingTarget: text,
  pingName: text,
  btest: fc.array(record(BTEST_KEYS), { maxLength: 2 }),
  setup: fc.record({
    interfaces: fc.array(record(SETUP_PROPLISTS.interfaces), { maxLength: 3 }),
    peers: fc.array(record(SETUP_PROPLISTS.peers), { maxLength: 3 }),
    addresses: fc.array(record(SETUP_PROPLISTS.addresses), { maxLength: 3 }),
    routes: fc.array(record(SETUP_PROPLISTS.routes), { maxLength: 3 }),
    filter: fc.array(record(SETUP_PROPLISTS.filter), { maxLength: 3 }),
  }),
});
type Replies = typeof routerReplies extends fc.Arbitrary<infer T> ? T : never;

const NOW = Date.UTC(2026, 5, 1);
const health = testRouter().health;

/** What a label value becomes: C0 controls (but line feed) and DEL have no escape; lone surrogates are not UTF-8. */
function asExposed(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return Buffer.from(raw.replace(/[\x00-\x09\x0b-\x1f\x7f]/g, '\uFFFD'), 'utf8').toString('utf8');
}

function expose(replies: Replies[]): Exposition {
  const store = new SnapshotStore();
  const names = [...new Set(replies.map((r) => r.router))];
  const plans = ['system', 'wireguard', 'wireguard_setup', 'ping', 'bandwidth_test'] as const;
  // The first reply of each router (names repeat; an index into `names` is not one into `replies`).
  const first = replies.filter((reply, i) => replies.findIndex((other) => other.router === reply.router) === i);
  store.plan(
    new Map(names.map((name) => [name, plans.map((collector) => ({ collector, job: collector }))])),
    new Map(first.map((r) => [r.router, routerLabel(r.router, r.labels)])),
  );
  for (const r of first) {
    const label = routerLabel(r.router, r.labels);
    const base = { router: r.router, ok: true, finishedAt: NOW, durationSeconds: 0.1 } as const;
    const target = { target: r.pingTarget, name: r.pingName, count: 3, intervalSeconds: 1, schedule: '* * * * *' };
    const test = { target: r.pingTarget, name: r.pingName, durationSeconds: 5, schedule: '* * * * *', direction: 'both', protocol: 'udp' } as const;
    const results = {
      system: mapped(() => mapSystem(r.system, label)),
      wireguard: mapped(() => mapWireguard(r.interfaces, r.peers, label, health, NOW)),
      wireguard_setup: mapped(() => mapWireguardSetup(r.setup, label, NOW)),
      ping: mapped(() => mapPing(r.ping, target, label, new Map())),
      bandwidth_test: mapped(() => mapBandwidthTest(r.btest, test, label, NOW)),
    };
    for (const collector of plans) {
      const result = results[collector];
      if (result === undefined) store.record({ ...base, collector, job: collector, ok: false, reason: 'parse' });
      else store.record({ ...base, collector, job: collector, samples: result.samples, data: result.data });
    }
  }
  return new Exposition(store, new SelfMetrics({ version: 'property' }));
}

/** A mapping's result, or undefined when the reply is not the menu's data (a shape error: the run fails, as the job would). */
function mapped<T>(map: () => T): T | undefined {
  try {
    return map();
  } catch (error) {
    if (error instanceof RouterOsError && error.code === 'ROS_ERR_SHAPE') return undefined;
    throw error;
  }
}

async function render(exposition: Exposition, format: 'text' | 'openmetrics', gzip: boolean): Promise<Buffer> {
  const body = Buffer.concat((await exposition.render(format, gzip)).parts);
  return gzip ? gunzipSync(body) : body;
}

describe('random router replies through collectors and exposition', () => {
  it('always parse strictly, in both formats and gzipped, with finite router values and faithful labels', async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(routerReplies, { minLength: 1, maxLength: 3 }), async (replies) => {
        tried++;
        const exposition = expose(replies);
        const plain = await render(exposition, 'text', false);
        const parsed = parseExposition(plain, 'text');
        const openmetrics = await render(exposition, 'openmetrics', false);
        parseExposition(openmetrics, 'openmetrics');
        parseOpenMetrics(openmetrics);
        // The router part of the gzipped body holds the same lines (the process metrics move between renders). As
        // lines, not bytes: a merge of stored chunks (merge.ts, on a timer once the store is quiet) may land between
        // two renders on a loaded machine, and lays a run where its first chunk was — the same lines, a family's in
        // another order, which the format allows.
        const routerLines = (body: Buffer): string[] => (body.toString('utf8').split('# HELP process_')[0] ?? '').split('\n').sort();
        expect(routerLines(await render(exposition, 'text', true))).toEqual(routerLines(plain));
        for (const sample of parsed.samples) {
          if (sample.name.startsWith('routeros_')) expect(Number.isFinite(sample.value), sample.key).toBe(true);
        }
        const routers = new Set(parsed.samples.map((sample) => sample.labels['router']).filter((name) => name !== undefined));
        expect(routers).toEqual(new Set(replies.map((reply) => asExposed(reply.router))));
        const ifaceNames = new Set(parsed.samples.filter((s) => s.name === 'routeros_wireguard_interface_info').map((s) => s.labels['interface']));
        for (const name of ifaceNames) expect(replies.some((r) => r.interfaces.some((i) => asExposed(i['name'] ?? '') === name))).toBe(true);
        const peerNames = new Set(parsed.samples.filter((s) => s.name === 'routeros_wireguard_peer_info').map((s) => s.labels['name']));
        for (const name of peerNames) {
          expect(replies.some((r) => r.peers.some((p) => asExposed(p['name'] || (p['comment'] ?? '')) === name))).toBe(true);
        }
        // Every router series carries its router's configured labels, values as configured; the exporter's own none.
        const configured = new Map(replies.filter((r, i) => replies.findIndex((o) => o.router === r.router) === i).map((r) => [asExposed(r.router), r.labels]));
        for (const sample of parsed.samples) {
          const labels = configured.get(sample.labels['router'] ?? '');
          if (!sample.name.startsWith('routeros_') || sample.name.startsWith('routeros_exporter_')) {
            expect(sample.labels['router'], sample.key).toBeUndefined();
            continue;
          }
          expect(labels, sample.key).toBeDefined();
          for (const [name, value] of Object.entries(labels ?? {})) expect(sample.labels[name], sample.key).toBe(asExposed(value));
        }
      }),
      { numRuns: 200 },
    );
    console.log(`exposition property: ${tried} random sets of router replies and label maps tried`);
  });

  it('always pass promtool check metrics', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(routerReplies, { minLength: 1, maxLength: 2 }), async (replies) => {
        const check = await promtoolCheckMetrics(await render(expose(replies), 'text', false));
        expect(check.output).toBe('');
        expect(check.code).toBe(0);
      }),
      { numRuns: 25 },
    );
  });
});
