/**
 * In-process benchmark of the per-router analysis a wireguard or wireguard_setup run ends with, at hub shapes:
 * the set-up audit (src/analysis/setup-audit.ts) and the health verdicts over every interface and peer
 * (src/health/evaluate.ts). Figures, not a test: each row is the median of three runs, in ms of blocked loop.
 *   node --import tsx bench/audit.ts [--sizes 1000,4000,20000] [--forward-rules 20]
 * Shapes: a hub with N tunnels each carrying one branch subnet and its route ("interfaces"), and one interface
 * with N peers and N routes ("peers"), with F forward rules that do not decide (every flow walks them all).
 */
import { parseArgs } from 'node:util';
import { auditSetup, type SetupRecords } from '../src/analysis/setup-audit.js';
import { mapWireguard } from '../src/collectors/wireguard.js';
import { mapWireguardSetup } from '../src/collectors/wireguard-setup.js';
import { resolveConfig } from '../src/config/index.js';
import { evaluateRouter } from '../src/health/evaluate.js';
import { routerLabel } from '../src/metrics/family.js';
import type { JobSnapshot } from '../src/metrics/store.js';
import type { RouterRecord } from '../src/routeros/records.js';

const { values } = parseArgs({ options: { sizes: { type: 'string' }, 'forward-rules': { type: 'string' } } });
const sizes = (values.sizes ?? '1000,4000,20000').split(',').map(Number);
const forwardRules = Number(values['forward-rules'] ?? 20);
const router = resolveConfig(
  { defaults: { username: 'u', password: 'p' }, routers: [{ name: 'hub', url: 'https://192.0.2.1', collectors: { wireguard_setup: true } }] },
  { source: '<bench>', baseDir: process.cwd(), env: {} },
).routers[0];
if (router === undefined) throw new Error('no router');
const NOW = Date.now();

const octets = (i: number): string => `${(i >> 8) & 255}.${i & 255}`;
const subnet = (i: number): string => `${100 + (i >> 16)}.${octets(i)}.0/24`;

function hub(n: number, interfaceCount: number): SetupRecords {
  const interfaces: RouterRecord[] = Array.from({ length: interfaceCount }, (_, i) => ({ '.id': `*${i}`, name: `wg${i}`, 'listen-port': String(1024 + (i % 60_000)), running: 'true', disabled: 'false', 'public-key': `k${i}` }));
  const peers: RouterRecord[] = Array.from({ length: n }, (_, i) => ({ '.id': `*${i}`, interface: `wg${i % interfaceCount}`, name: `site-${i}`, 'public-key': `p${i}`, 'allowed-address': `10.${octets(i)}.2/32,${subnet(i)}`, disabled: 'false', 'last-handshake': '30s' }));
  const addresses: RouterRecord[] = interfaces.map((iface, i) => ({ '.id': `*${i}`, address: `10.${octets(i)}.1/32`, interface: iface['name'] ?? '', disabled: 'false' }));
  const routes: RouterRecord[] = Array.from({ length: n }, (_, i) => ({ '.id': `*${i}`, 'dst-address': subnet(i), gateway: `wg${i % interfaceCount}`, disabled: 'false' }));
  const filter: RouterRecord[] = [
    { '.id': '*I', chain: 'input', action: 'accept', protocol: 'udp', 'dst-port': '1024-65535', disabled: 'false' },
    ...Array.from({ length: forwardRules }, (_, i) => ({ '.id': `*F${i}`, chain: 'forward', action: 'accept', 'src-address': `198.18.${i >> 8}.${i & 255}`, disabled: 'false' })),
  ];
  return { interfaces, peers, addresses, routes, filter };
}

function median(run: () => void): number {
  const times = [0, 1, 2].map(() => {
    const start = performance.now();
    run();
    return performance.now() - start;
  });
  return times.sort((a, b) => a - b)[1] ?? 0;
}

function snapshot(collector: JobSnapshot['collector'], data: unknown): JobSnapshot {
  return { collector, job: collector, ok: true, reason: undefined, finishedAt: NOW, durationSeconds: 0, lastSuccessAt: NOW, chunks: [], data };
}

console.log(`forward rules: ${forwardRules}; ms of blocked loop, median of 3`);
console.log('shape        size     audit   verdicts');
for (const shape of ['interfaces', 'peers'] as const) {
  for (const n of sizes) {
    const records = hub(n, shape === 'interfaces' ? n : 1);
    const audit = median(() => auditSetup(records));
    const wireguard = snapshot('wireguard', mapWireguard(records.interfaces, records.peers, routerLabel('hub'), router.health, NOW).data);
    const setup = snapshot('wireguard_setup', mapWireguardSetup(records, routerLabel('hub'), NOW).data);
    const system = snapshot('system', { version: '7.19.4' });
    const verdicts = median(() => evaluateRouter(router, [system, wireguard, setup], NOW));
    console.log(`${shape.padEnd(12)} ${String(n).padStart(5)} ${audit.toFixed(0).padStart(9)} ${verdicts.toFixed(0).padStart(10)}`);
  }
}
