/**
 * Verdicts and the set-up audit cost in proportion to what the router holds. Each of these shapes blocked the
 * event loop for tens of seconds or more when a per-item lookup scanned a whole menu (measured before the fix: the
 * audit of 10,000 interfaces 72 s; verdicts over 60,000 interfaces and peers 26 s besides building them); now
 * each takes well under a second (building the records takes a few). The timeouts are hang guards between the
 * two figures, not benchmarks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { auditSetup, auditSetupSteps, MAX_AUDITED_SUBNETS } from '../../src/analysis/setup-audit.js';
import { MAX_GATEWAYS, OWNERS_NAMED, RouteTable } from '../../src/analysis/setup-routes.js';
import { finishInSlices } from '../../src/util/slices.js';
import { DEFAULT_RULE_CHECKS } from '../../src/analysis/firewall.js';
import { mapWireguardSetup } from '../../src/collectors/wireguard-setup.js';
import { routerLabel } from '../../src/metrics/family.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { sampleText } from '../collectors/sample-text.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testRouter } from '../helpers/config.js';
import { setup, systemOk, T0, wireguard } from './snapshots.js';

const octets = (i: number) => `${(i >> 8) & 255}.${i & 255}`;
/** Branch i's LAN. */
const subnet = (i: number) => `${100 + (i >> 16)}.${octets(i)}.0/24`;

function hub(interfaceCount: number, { routeMissingFor }: { routeMissingFor: number }) {
  const interfaces: RouterRecord[] = [];
  const peers: RouterRecord[] = [];
  const addresses: RouterRecord[] = [];
  const routes: RouterRecord[] = [];
  for (let i = 0; i < interfaceCount; i++) {
    const name = `wg${i}`;
    interfaces.push({ '.id': `*${i}`, name, 'listen-port': String(1024 + i), running: 'true', disabled: 'false', 'public-key': `k${i}` });
    peers.push({ '.id': `*${i}`, interface: name, name: `site-${i}`, 'public-key': `p${i}`, 'allowed-address': `10.${octets(i)}.2/32,${subnet(i)}`, disabled: 'false', 'last-handshake': '30s' });
    addresses.push({ '.id': `*${i}`, address: `10.${octets(i)}.1/32`, interface: name, disabled: 'false' });
    if (i !== routeMissingFor) routes.push({ '.id': `*${i}`, 'dst-address': subnet(i), gateway: name, disabled: 'false' });
  }
  const filter: RouterRecord[] = [
    { '.id': '*1', chain: 'input', action: 'accept', protocol: 'udp', 'dst-port': '1024-65535', disabled: 'false' },
    { '.id': '*2', chain: 'input', action: 'drop', 'in-interface-list': 'WAN', disabled: 'false' },
    { '.id': '*3', chain: 'forward', action: 'drop', 'connection-state': 'invalid', disabled: 'false' },
  ];
  return { interfaces, peers, addresses, routes, filter };
}

describe('work in proportion to the router', () => {
  it('audits a hub of 10,000 tunnels, each with its branch subnet and route, and finds the one route missing', { timeout: 30_000 }, () => {
    const audit = auditSetup(hub(10_000, { routeMissingFor: 4321 }));
    expect(audit).toHaveLength(10_000);
    const failing = audit.filter((setup) => setup.checks.some((check) => !check.ok));
    expect(failing.map((setup) => [setup.interface, setup.checks.filter((check) => !check.ok).map((check) => check.check)])).toEqual([['wg4321', ['route']]]);
  });

  describe('verdicts over a hub of 60,000 interfaces and peers', () => {
    const router = testRouter({}, { collectors: { wireguard_setup: true } });
    let snapshots: JobSnapshot[] = [];
    // Building the snapshots (mapping and auditing 60,000 of each) takes seconds of its own, outside the test's
    // hang guard, which holds the evaluation alone.
    beforeAll(() => {
      const records = hub(60_000, { routeMissingFor: -1 });
      snapshots = [systemOk(), wireguard(router, records.interfaces, records.peers), setup(records)];
    }, 60_000);

    it('judges them all, set-up audited, in one evaluation', { timeout: 10_000 }, () => {
      const { health } = evaluateRouter(router, snapshots, T0);
      expect(health.interfaces).toHaveLength(60_000);
      expect(health.peers).toHaveLength(60_000);
      expect(health.reasons.slice(0, 3)).toEqual([]);
      expect(health.status).toBe('ok');
    });
  });

  it('fails the audit with a clear error, not a blocked loop, when flows × rules pass the limit of rule checks', () => {
    // One interface with 1,100 branch subnets (two flows each) through 1,000 forward rules none of which decides.
    const records = hub(1, { routeMissingFor: -1 });
    records.peers = Array.from({ length: 1_100 }, (_, i) => ({ '.id': `*${i}`, interface: 'wg0', 'public-key': `p${i}`, name: `site-${i}`, 'allowed-address': subnet(i), disabled: 'false' }));
    const forward = Array.from({ length: 1_000 }, (_, i) => ({ '.id': `*F${i}`, chain: 'forward', action: 'accept', 'src-address': `198.18.${i >> 8}.${i & 255}`, disabled: 'false' }));
    expect(1_100 * 2 * forward.length).toBeGreaterThan(DEFAULT_RULE_CHECKS);
    let error: unknown;
    try {
      mapWireguardSetup({ ...records, filter: [...records.filter, ...forward] }, routerLabel('hq'), T0);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RouterOsError);
    expect((error as RouterOsError).reason).toBe('parse');
    expect((error as RouterOsError).message).toBe(
      "ip/firewall/filter: judging the tunnels' traffic against 1003 enabled rules takes more than 2000000 rule checks; the set-up is not audited",
    );
    // 900 subnets fit (1.8 million checks and the input chain's).
    records.peers = records.peers.slice(0, 900);
    expect(auditSetup({ ...records, filter: [...records.filter, ...forward] })[0]?.checks.find((check) => check.check === 'firewall_forward')).toEqual({ check: 'firewall_forward', ok: true });
  });

  it(`fails the audit with a clear error past ${MAX_AUDITED_SUBNETS} subnets routed through one interface (200,000 in one peer took 3.3 s)`, () => {
    const records = hub(1, { routeMissingFor: -1 });
    const many = (count: number) => Array.from({ length: count }, (_, i) => subnet(i)).join(',');
    records.peers = [{ '.id': '*1', interface: 'wg0', 'public-key': 'p1', name: 'site', 'allowed-address': many(MAX_AUDITED_SUBNETS + 1), disabled: 'false' }];
    expect(() => mapWireguardSetup(records, routerLabel('hq'), T0)).toThrow(
      new RouterOsError('ROS_ERR_TOO_MUCH', `interface/wireguard/peers: the peers of "wg0" route more than ${MAX_AUDITED_SUBNETS} subnets (allowed-address other than single hosts); the set-up is not audited`),
    );
    records.peers = [{ '.id': '*1', interface: 'wg0', 'public-key': 'p1', name: 'site', 'allowed-address': many(MAX_AUDITED_SUBNETS), disabled: 'false' }];
    expect(auditSetup(records)[0]?.routedSubnets).toHaveLength(MAX_AUDITED_SUBNETS);
  });

  it('audits in steps, an interface at a time and the rules in pieces, to the result it makes in one go', async () => {
    const records = hub(300, { routeMissingFor: 7 });
    // Input rules with long port lists: each is parsed once, not at every check (600 of 10,000 ports took 6.5–8 s).
    const ports = Array.from({ length: 2_000 }, (_, i) => String(20_000 + 3 * i)).join(',');
    records.filter = [...Array.from({ length: 200 }, (_, i) => ({ '.id': `*P${i}`, chain: 'input', action: 'accept', protocol: 'udp', 'dst-port': ports, disabled: 'false' })), ...records.filter];
    let pauses = 0;
    const sliced = await finishInSlices(auditSetupSteps(records), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced).toEqual(auditSetup(records));
    expect(sliced.find((setup) => setup.interface === 'wg7')?.checks.find((check) => check.check === 'route')?.ok).toBe(false);
    expect(pauses).toBeGreaterThanOrEqual(300 + Math.floor(records.filter.length / 64));
  });

  it('audits in steps whatever the router lists: a pause possible every 256 routes and every 4,096 peers or allowed-address entries, single hosts and entries that are no address included (250,000 routes took one task of 2.6 s, 30 MB of hosts 1.5 s)', async () => {
    const records = hub(1, { routeMissingFor: -1 });
    const host = (i: number) => `10.${(i >> 16) & 255}.${octets(i)}/32`;
    const list = (count: number, entry: (i: number) => string) => Array.from({ length: count }, (_, i) => entry(i)).join(',');
    records.routes = Array.from({ length: 20_000 }, (_, i) => ({ '.id': `*R${i}`, 'dst-address': subnet(i), gateway: '192.0.2.1', distance: '20', disabled: 'false' }));
    records.peers = [
      ...Array.from({ length: 4 }, (_, i) => ({ '.id': `*H${i}`, interface: 'wg0', 'public-key': `h${i}`, name: `hosts-${i}`, 'allowed-address': list(20_000, host), disabled: 'false' })),
      ...Array.from({ length: 4 }, (_, i) => ({ '.id': `*G${i}`, interface: 'wg0', 'public-key': `g${i}`, name: `junk-${i}`, 'allowed-address': list(20_000, (k) => `x${k}`), disabled: 'false' })),
      ...Array.from({ length: 20_000 }, (_, i) => ({ '.id': `*P${i}`, interface: 'wg0', 'public-key': `s${i}`, name: `site-${i}`, 'allowed-address': host(i), disabled: i % 2 === 0 ? 'false' : 'true' })),
    ];
    // No address on wg0: the address check looks for the peers' hosts, through every list.
    records.addresses = [];
    let pauses = 0;
    const sliced = await finishInSlices(auditSetupSteps(records), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced).toEqual(auditSetup(records));
    expect(sliced[0]?.checks.find((check) => check.check === 'address')?.detail).toContain('(its peers use 10.0.0.0/32, 10.0.0.1/32, 10.0.0.2/32;');
    const entries = 8 * 20_000 + 10_000;
    const atLeast = Math.floor(20_000 / 256) + Math.floor(records.peers.length / 4096) + Math.floor(entries / 4096);
    expect(pauses).toBeGreaterThanOrEqual(atLeast);
  });

  it(`names at most ${OWNERS_NAMED} peers per finding, each cut short (30 peers of 1 MiB names routing the same subnets filled the heap until the process died)`, () => {
    const records = hub(1, { routeMissingFor: -1 });
    const subnets = Array.from({ length: 50 }, (_, i) => subnet(1_000 + i)).join(',');
    records.peers = Array.from({ length: 10 }, (_, i) => ({ '.id': `*${i}`, interface: 'wg0', 'public-key': `c${i}`, comment: `${i}${'c'.repeat(100_000)}`, 'allowed-address': subnets, disabled: 'false' }));
    const route = auditSetup(records)[0]?.checks.find((check) => check.check === 'route');
    expect(route?.ok).toBe(false);
    const cut = (i: number) => `${i}${'c'.repeat(59)}… (99941 more characters)`;
    expect(route?.detail?.startsWith(`no route sends 100.3.232.0/24 (peer ${cut(0)}, ${cut(1)}, ${cut(2)} and 7 more) anywhere; `)).toBe(true);
    expect(route?.detail?.length).toBeLessThan(4_000);
  });

  it(`reads at most ${MAX_GATEWAYS} gateways of a route (a route of a million within a record's size was read to its end)`, () => {
    const records = hub(1, { routeMissingFor: 0 });
    records.peers = [{ '.id': '*1', interface: 'wg0', 'public-key': 'p1', name: 'site', 'allowed-address': subnet(0), disabled: 'false' }];
    const gateways = (onWg0At: number) => Array.from({ length: MAX_GATEWAYS + 1 }, (_, i) => (i === onWg0At ? 'wg0' : `198.18.${octets(i)}`)).join(',');
    records.routes = [{ '.id': '*D', 'dst-address': '0.0.0.0/0', gateway: gateways(MAX_GATEWAYS - 1), disabled: 'false' }];
    expect(auditSetup(records)[0]?.checks.find((check) => check.check === 'route')?.ok).toBe(true);
    records.routes = [{ '.id': '*D', 'dst-address': '0.0.0.0/0', gateway: gateways(MAX_GATEWAYS), disabled: 'false' }];
    expect(auditSetup(records)[0]?.checks.find((check) => check.check === 'route')?.ok).toBe(false);
  });

  it('builds the route table in steps weighed by its gateway lists, and reads no gateway longer than any address and name (two of 500,000 characters took 2.7 s)', () => {
    const gateways = Array.from({ length: 4_000 }, (_, i) => `198.18.${octets(i)}`).join(',');
    const routes = Array.from({ length: 40 }, (_, i) => ({ '.id': `*${i}`, 'dst-address': subnet(i), gateway: gateways, disabled: 'false' }));
    const steps = RouteTable.steps(routes, []);
    let pauses = 0;
    for (let step = steps.next(); step.done !== true; step = steps.next()) pauses++;
    // Fewer routes than 256, which alone made no pause.
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(40 / Math.ceil((64 * 1024) / gateways.length)));
    const records = hub(1, { routeMissingFor: 0 });
    records.peers = [{ '.id': '*1', interface: 'wg0', name: 'site', 'allowed-address': subnet(0), disabled: 'false' }];
    records.routes = [{ '.id': '*D', 'dst-address': '0.0.0.0/0', gateway: `${'%'.repeat(300_000)}wg0,${'%'.repeat(300_000)}wg1`, disabled: 'false' }];
    expect(auditSetup(records)[0]?.checks.find((check) => check.check === 'route')?.ok).toBe(false);
  });

  it('audits a default route of 3,000 gateways for 3,000 subnets on an interface with 3,000 addresses', { timeout: 20_000 }, () => {
    // Each subnet follows the default route, whose gateways were matched against every address, per subnet:
    // 2,000 of each took 15 s (found by a hostile review).
    const n = 3_000;
    const records = hub(1, { routeMissingFor: 0 });
    records.peers = Array.from({ length: n }, (_, i) => ({ '.id': `*${i}`, interface: 'wg0', 'public-key': `p${i}`, name: `site-${i}`, 'allowed-address': subnet(i), disabled: 'false' }));
    records.addresses = Array.from({ length: n }, (_, i) => ({ '.id': `*A${i}`, address: `10.${octets(i)}.1/32`, interface: 'wg0', disabled: 'false' }));
    // No gateway is on wg0 but the last.
    const gateways = [...Array.from({ length: n - 1 }, (_, i) => `198.18.${octets(i)}`), `10.${octets(n - 1)}.1`];
    records.routes = [{ '.id': '*D', 'dst-address': '0.0.0.0/0', gateway: gateways.join(','), disabled: 'false' }];
    expect(auditSetup(records)[0]?.checks.find((check) => check.check === 'route')).toEqual({ check: 'route', ok: true });
    records.routes = [{ '.id': '*D', 'dst-address': '0.0.0.0/0', gateway: gateways.slice(0, -1).join(','), disabled: 'false' }];
    const failing = auditSetup(records)[0]?.checks.find((check) => check.check === 'route');
    expect(failing?.ok).toBe(false);
    // Ten findings word for word, the route's gateway list cut short in each, and a count of the rest.
    expect(failing?.detail).toMatch(/; and 2990 more$/);
    expect(failing?.detail?.length).toBeLessThan(3_000);
    expect(failing?.fix?.split('\n')).toHaveLength(11);
    // /health and check word the whole finding, fixes included (their own bounds are above).
    const router = testRouter({}, { collectors: { wireguard_setup: true } });
    const { health } = evaluateRouter(router, [systemOk(), setup(records)], T0);
    const reason = health.reasons.find((text) => text.includes('set-up check route fails')) ?? '';
    expect(reason).toContain(`Fix: ${failing?.fix?.replaceAll('\n', ' ; ')}`);
  });
});

describe('names of megabytes', () => {
  it('are shortened in /health as in their series: the two agree, and the report stays small', () => {
    const router = testRouter();
    const long = `wg-${'x'.repeat(2_000_000)}`;
    const interfaces = [{ '.id': '*1', name: long, running: 'false', disabled: 'false', 'public-key': 'k' }];
    const peers = [{ '.id': '*1', interface: long, name: `site-${'y'.repeat(2_000_000)}`, 'public-key': 'p'.repeat(44), disabled: 'false', 'last-handshake': '30s' }];
    const label = /interface="([^"]+)"/.exec(sampleText(mapWireguard(interfaces, peers, routerLabel('x'), router.health, T0).samples))?.[1];
    const { health } = evaluateRouter(router, [systemOk(), wireguard(router, interfaces, peers)], T0);
    expect(label).toMatch(/…[0-9a-f]{16}$/);
    expect(health.interfaces[0]?.name).toBe(label);
    expect(health.peers[0]?.interface).toBe(label);
    // The peer is judged against its interface as before (found under the shortened name): not running.
    expect(health.peers[0]?.reason).toBe('interface_not_running');
    expect(JSON.stringify(health).length).toBeLessThan(100_000);
  });
});
