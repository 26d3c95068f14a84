/**
 * The demo scenario (`routeros-exporter demo`, end-to-end tests): three routers whose tunnels
 * really pair up (hq's peer keys are the branches' interface keys and back), with one peer of
 * each interesting kind and one interface that fails the set-up audit. docs/emulator.md lists it.
 */
import type { RouterSeed } from '../types.js';
import { generateKeyPair } from '../util/keys.js';
import type { KeyPair } from '../util/keys.js';
import { Rng } from '../util/rng.js';
import { defaultFirewall } from './firewall.js';

/** Fixed key pairs, so names, keys and docs stay the same across runs. */
const key = (label: string): KeyPair => generateKeyPair(new Rng(`routeros-exporter demo ${label}`));

export const DEMO_KEYS = {
  hqBranches: key('hq/wg-branches'),
  hqRoad: key('hq/wg-roadwarriors'),
  branch1: key('branch-1/wg-hq'),
  branch2: key('branch-2/wg-hq'),
  branch2Lab: key('branch-2/wg-lab'),
  anna: key('peer laptop-anna'),
  bob: key('peer phone-bob'),
  tablet: key('peer tablet-new'),
  oldSite: key('peer old-site'),
  monitoring: key('peer monitoring'),
  lab1: key('peer lab-1'),
  lab2: key('peer lab-2'),
  branch3: key('peer branch-3'),
} as const;

const K = DEMO_KEYS;

const hq: RouterSeed = {
  name: 'hq',
  version: '7.19.4',
  board: { boardName: 'CCR2004-1G-12S+2XS', architecture: 'arm64', cpu: 'ARM64', cpuCount: 4, cpuFrequencyMhz: 1700, totalMemory: 4_294_967_296, totalHdd: 134_217_728, factorySoftware: '7.1', nand: true, diskFillBytesPerSecond: 16_384, memoryLeakBytesPerSecond: 4_194_304 },
  // A WAN uplink with real traffic that drops once, two minutes after start (the flap alert's
  // `link-downs` rise), a LAN bridge with two ports, a guest VLAN on it, an unplugged port and a
  // dynamic PPPoE session (exporters leave dynamic interfaces out by default).
  ethernet: [],
  links: [
    { name: 'ether1', comment: 'WAN uplink', rxRate: 2_500_000, txRate: 800_000, errorsPerMillion: 2, linkDowns: [[120, 20]] },
    { name: 'ether2', bridge: 'bridge-lan', rxRate: 600_000, txRate: 2_100_000 },
    { name: 'ether3', bridge: 'bridge-lan', rxRate: 150_000, txRate: 300_000 },
    { name: 'ether4', noLink: true },
    { name: 'bridge-lan', type: 'bridge', rxRate: 700_000, txRate: 2_300_000 },
    { name: 'vlan20-guest', type: 'vlan', parent: 'bridge-lan', vlanId: 20, rxRate: 40_000, txRate: 120_000 },
    { name: '<pppoe-alice>', type: 'pppoe-in', rxRate: 20_000, txRate: 90_000, sessionAgeSeconds: 5400 },
  ],
  health: { form: 'rows', temperatureC: 41, voltageV: 24, fans: 2, psus: 2, power: true },
  routerboard: { model: 'CCR2004-1G-12S+2XS', firmwareType: 'al64v3', factoryFirmware: '7.1' },
  packageUpdate: { latestVersion: '7.19.4' },
  interfaces: [
    { name: 'wg-branches', listenPort: 13231, privateKey: K.hqBranches.privateKey, comment: 'site-to-site' },
    { name: 'wg-roadwarriors', listenPort: 13232, privateKey: K.hqRoad.privateKey },
  ],
  peers: [
    { interface: 'wg-branches', name: 'branch-1', publicKey: K.branch1.publicKey, allowedAddress: ['10.10.0.2/32', '192.168.11.0/24'], endpointAddress: '198.51.100.11', endpointPort: 13231, persistentKeepalive: 25, comment: 'Branch 1 — Zürich "Limmat" office', rxRate: 150_000, txRate: 90_000 },
    { interface: 'wg-branches', name: 'branch-2', publicKey: K.branch2.publicKey, allowedAddress: ['10.10.0.3/32', '192.168.12.0/24'], endpointAddress: '198.51.100.12', endpointPort: 13231, persistentKeepalive: 25, comment: 'Branch 2 \\ backup link', rxRate: 60_000, txRate: 45_000 },
    // A dead site link: keepalive 25 s, its last handshake 4 minutes old (past 180 s + 25 s + 5 s): down, not
    // idle. Its tx still ticks with handshake initiations nobody answers.
    { interface: 'wg-branches', name: 'branch-3', publicKey: K.branch3.publicKey, allowedAddress: ['10.10.0.4/32'], endpointAddress: '198.51.100.13', endpointPort: 13231, persistentKeepalive: 25, life: 'stale', staleForSeconds: 240, comment: 'Branch 3 (site down)', rxRate: 20_000, txRate: 20_000 },
    // Road warriors: no keepalive, no endpoint (they call in). Asleep is idle, not down: no page.
    { interface: 'wg-roadwarriors', name: 'laptop-anna', publicKey: K.anna.publicKey, allowedAddress: ['10.20.0.10/32'], responder: true, life: 'stale', staleForSeconds: 600, comment: 'Anna\'s laptop "ThinkPad"' },
    { interface: 'wg-roadwarriors', name: 'phone-bob', publicKey: K.bob.publicKey, allowedAddress: ['10.20.0.11/32'], responder: true, life: 'going-stale', comment: 'Bob – phone (Ünïcödé ✓)' },
    { interface: 'wg-roadwarriors', name: 'tablet-new', publicKey: K.tablet.publicKey, allowedAddress: ['10.20.0.12/32'], responder: true, life: 'never' },
  ],
  addresses: [
    { address: '198.51.100.1/24', interface: 'ether1', comment: 'WAN' },
    { address: '192.168.10.1/24', interface: 'bridge-lan', comment: 'LAN' },
    { address: '10.10.0.1/24', interface: 'wg-branches' },
    { address: '10.20.0.1/24', interface: 'wg-roadwarriors' },
  ],
  routes: [
    { dstAddress: '0.0.0.0/0', gateway: '198.51.100.254' },
    { dstAddress: '192.168.11.0/24', gateway: 'wg-branches', comment: 'branch-1 LAN' },
    { dstAddress: '192.168.12.0/24', gateway: 'wg-branches', comment: 'branch-2 LAN' },
  ],
  // defconf's lists, the LAN being bridge-lan here.
  interfaceListMembers: [
    { list: 'WAN', interface: 'ether1', comment: 'defconf' },
    { list: 'LAN', interface: 'bridge-lan', comment: 'defconf' },
  ],
  firewall: defaultFirewall({
    wgPorts: [13231, 13232],
    forwardPairs: [['192.168.10.0/24', '192.168.11.0/24'], ['192.168.10.0/24', '192.168.12.0/24']],
  }),
  ping: {
    '10.10.0.2': { kind: 'reachable', rttMs: 12.3 },
    '10.10.0.3': { kind: 'lossy', rttMs: 48, loss: 0.3 },
    '10.20.0.10': { kind: 'timeout' },
    '192.0.2.1': { kind: 'host-unreachable', from: '198.51.100.254' },
  },
  bandwidthServers: {
    '10.10.0.2': { kind: 'ok', rxBps: 48_000_000, txBps: 21_000_000, lostPerSecond: 12 },
    '10.10.0.3': { kind: 'fail', status: 'can not connect' },
  },
};

const branch1: RouterSeed = {
  name: 'branch-1',
  version: '7.16',
  board: { boardName: 'hAP ax^2', architecture: 'arm64', cpu: 'ARM64', cpuCount: 4, cpuFrequencyMhz: 864, totalMemory: 1_073_741_824, totalHdd: 134_217_728, factorySoftware: '7.5', nand: true },
  // RouterOS was updated to 7.16 but the RouterBOOT firmware was not (Telegraf's hAP capture shows the same).
  routerboard: { model: 'C52iG-5HaxD2HaxD', firmwareType: 'ipq5000', factoryFirmware: '7.5', currentFirmware: '7.15.3', upgradeFirmware: '7.16' },
  packageUpdate: { latestVersion: '7.20.5' },
  health: { form: 'rows', temperatureC: 46, voltageV: 12 },
  interfaces: [{ name: 'wg-hq', listenPort: 13231, privateKey: K.branch1.privateKey }],
  peers: [
    { interface: 'wg-hq', name: 'hq', publicKey: K.hqBranches.publicKey, allowedAddress: ['10.10.0.1/32', '192.168.10.0/24'], endpointAddress: '198.51.100.1', endpointPort: 13231, persistentKeepalive: 25, comment: 'HQ uplink', rxRate: 90_000, txRate: 150_000 },
    { interface: 'wg-hq', name: 'old-site', publicKey: K.oldSite.publicKey, allowedAddress: ['10.10.0.9/32', '192.168.19.0/24'], endpointAddress: 'old.example.net', endpointPort: 13231, disabled: true, comment: 'decommissioned "old" site \\ do not enable' },
    { interface: 'wg-hq', name: 'monitoring', publicKey: K.monitoring.publicKey, allowedAddress: ['10.10.0.50/32'], responder: true },
  ],
  addresses: [
    { address: '198.51.100.11/24', interface: 'ether1', comment: 'WAN' },
    { address: '192.168.11.1/24', interface: 'ether2', comment: 'LAN' },
    { address: '10.10.0.2/24', interface: 'wg-hq' },
  ],
  routes: [
    { dstAddress: '0.0.0.0/0', gateway: '198.51.100.254' },
    { dstAddress: '192.168.10.0/24', gateway: 'wg-hq', comment: 'HQ LAN' },
    { dstAddress: '192.168.19.0/24', gateway: 'wg-hq', comment: 'old site LAN' },
  ],
  // defconf's lists, the LAN port being ether2.
  interfaceListMembers: [
    { list: 'WAN', interface: 'ether1', comment: 'defconf' },
    { list: 'LAN', interface: 'ether2', comment: 'defconf' },
  ],
  firewall: defaultFirewall({
    wgPorts: [13231],
    forwardPairs: [['192.168.11.0/24', '192.168.10.0/24'], ['192.168.11.0/24', '192.168.19.0/24']],
  }),
  ping: {
    '10.10.0.1': { kind: 'reachable', rttMs: 11.5 },
    '192.168.10.1': { kind: 'reachable', rttMs: 12.1 },
  },
  bandwidthServers: {
    '10.10.0.1': { kind: 'ok', rxBps: 21_000_000, txBps: 48_000_000, user: 'btest', password: 'demo-btest-secret' },
  },
};

const branch2: RouterSeed = {
  name: 'branch-2',
  version: '7.12.1',
  board: { boardName: 'RB5009UG+S+', architecture: 'arm64', cpu: 'ARM64', cpuCount: 4, cpuFrequencyMhz: 1400, totalMemory: 1_073_741_824, totalHdd: 1_073_741_824, factorySoftware: '7.0.5' },
  routerboard: { model: 'RB5009UG+S+', firmwareType: 'mvebu', factoryFirmware: '7.0.5' },
  packageUpdate: { latestVersion: false },
  links: [{ name: 'ether1', comment: 'WAN', rxRate: 900_000, txRate: 400_000 }, { name: 'ether2', rxRate: 300_000, txRate: 700_000 }, { name: 'ether3', noLink: true }],
  ethernet: [],
  interfaces: [
    { name: 'wg-hq', listenPort: 13231, privateKey: K.branch2.privateKey },
    { name: 'wg-lab', listenPort: 51820, privateKey: K.branch2Lab.privateKey, comment: 'lab network' },
  ],
  peers: [
    { interface: 'wg-hq', publicKey: K.hqBranches.publicKey, allowedAddress: ['10.10.0.1/32', '192.168.10.0/24'], endpointAddress: '198.51.100.1', endpointPort: 13231, persistentKeepalive: 25, comment: 'HQ uplink', rxRate: 45_000, txRate: 60_000 },
    { interface: 'wg-lab', publicKey: K.lab1.publicKey, allowedAddress: ['10.30.0.2/32', '172.16.30.0/24'], comment: 'Lab router "R1"' },
    { interface: 'wg-lab', publicKey: K.lab2.publicKey, allowedAddress: ['10.30.0.3/32'], comment: 'Lab test box' },
  ],
  addresses: [
    { address: '198.51.100.12/24', interface: 'ether1', comment: 'WAN' },
    { address: '192.168.12.1/24', interface: 'ether2', comment: 'LAN' },
    { address: '10.10.0.3/24', interface: 'wg-hq' },
    { address: '10.30.0.1/24', interface: 'wg-lab' },
  ],
  routes: [
    { dstAddress: '0.0.0.0/0', gateway: '198.51.100.254' },
    { dstAddress: '192.168.10.0/24', gateway: 'wg-hq', comment: 'HQ LAN' },
    { dstAddress: '172.16.30.0/24', gateway: 'wg-lab', comment: 'lab LAN' },
  ],
  // defconf's lists, the LAN port being ether2.
  interfaceListMembers: [
    { list: 'WAN', interface: 'ether1', comment: 'defconf' },
    { list: 'LAN', interface: 'ether2', comment: 'defconf' },
  ],
  // wg-lab's UDP 51820 is deliberately not accepted: that interface fails `firewall_input`.
  firewall: defaultFirewall({
    wgPorts: [13231],
    forwardPairs: [['192.168.12.0/24', '192.168.10.0/24'], ['192.168.12.0/24', '172.16.30.0/24']],
  }),
  ping: {
    '10.10.0.1': { kind: 'lossy', rttMs: 35, loss: 0.2 },
    '10.30.0.2': { kind: 'reachable', rttMs: 2.2 },
  },
  bandwidthServers: {
    '10.10.0.1': { kind: 'ok', rxBps: 9_500_000, txBps: 9_800_000 },
  },
};

/** The demo routers as data (fresh copies each call would be safer, but seeds are never mutated). */
export const DEMO_ROUTERS: readonly RouterSeed[] = [hq, branch1, branch2];

/** Facts about the demo scenario that tests and docs refer to. */
export const DEMO_FACTS = {
  routers: ['hq', 'branch-1', 'branch-2'],
  freshPeer: { router: 'hq', interface: 'wg-branches', name: 'branch-1', publicKey: K.branch1.publicKey },
  /** Keepalive 25 s, last handshake 240 s before start: `down` from the first collection. */
  deadLink: { router: 'hq', interface: 'wg-branches', name: 'branch-3', publicKey: K.branch3.publicKey, keepaliveSeconds: 25, lastHandshakeAgoSeconds: 240 },
  stalePeer: { router: 'hq', interface: 'wg-roadwarriors', name: 'laptop-anna', publicKey: K.anna.publicKey, lastHandshakeAgoSeconds: 600 },
  goingStalePeer: { router: 'hq', interface: 'wg-roadwarriors', name: 'phone-bob', publicKey: K.bob.publicKey },
  neverPeer: { router: 'hq', interface: 'wg-roadwarriors', name: 'tablet-new', publicKey: K.tablet.publicKey },
  disabledPeer: { router: 'branch-1', interface: 'wg-hq', name: 'old-site', publicKey: K.oldSite.publicKey },
  failingAudit: { router: 'branch-2', interface: 'wg-lab', check: 'firewall_input' },
  ping: {
    answers: { router: 'hq', target: '10.10.0.2' },
    lossy: { router: 'hq', target: '10.10.0.3', loss: 0.3 },
    timeout: { router: 'hq', target: '10.20.0.10' },
    hostUnreachable: { router: 'hq', target: '192.0.2.1' },
  },
  bandwidthServer: { router: 'hq', target: '10.10.0.2', rxBps: 48_000_000, txBps: 21_000_000 },
  uplink: { router: 'hq', interface: 'ether1', linkDownAfterSeconds: 120, downForSeconds: 20 },
  dynamicInterface: { router: 'hq', interface: '<pppoe-alice>', type: 'pppoe-in' },
  health: { router: 'hq', fans: 2, psus: 2 },
  firmwareUpgradePending: { router: 'branch-1', currentFirmware: '7.15.3', upgradeFirmware: '7.16' },
  newerVersionKnown: { router: 'branch-1', installed: '7.16', latest: '7.20.5' },
} as const;
