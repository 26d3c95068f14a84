/**
 * Turns a RouterSeed into records. Seeds go through the same menu code as REST writes, so a bad
 * seed fails loudly at start with the error a client would get; peers then get their behaviour.
 */
import { PeerSim } from '../sim/peer-sim.js';
import type { Counter } from '../sim/peer-sim.js';
import type { InterfaceListMemberSeed, InterfaceListSeed, PeerSeed, RouterSeed } from '../types.js';
import { randomPublicKey } from '../util/keys.js';
import { atLeast } from '../util/version.js';
import type { RouterState } from './router-state.js';

type Values = Record<string, unknown>;

function params(values: Values): Map<string, unknown> {
  return new Map(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** Seeded counters: exact beyond 2^53 when given as decimal strings. */
function toCounter(value: number | string): Counter {
  const big = BigInt(typeof value === 'number' ? Math.floor(value) : value);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

/** WireGuard's REKEY_TIMEOUT: the retry after a handshake response that did not come. */
const RETRY_MS = 5_000;

/** The initiations of a wake (PeerSeed.wake): one at start + afterSeconds, then one per lost response, 5 s apart. */
function wakeInitiations(start: number, wake: NonNullable<PeerSeed['wake']>): number[] {
  const at = start + wake.afterSeconds * 1000;
  return Array.from({ length: (wake.lostResponses ?? 0) + 1 }, (_, k) => at + k * RETRY_MS);
}

/** The simulated behaviour of a seeded peer; counters at start follow from its own history. */
export function peerSim(state: RouterState, seed: PeerSeed, key: string, start: number, staleAfterMs: number): PeerSim {
  const rng = state.rng.fork(key);
  const phaseMs = rng.int(1_000, 10_000);
  const life = seed.life ?? 'live';
  let handshakeFrom = -Infinity;
  let handshakeUntil = Infinity;
  if (life === 'never') handshakeFrom = Infinity;
  if (life === 'going-stale') handshakeUntil = start + (seed.staleAfterSeconds === undefined ? staleAfterMs : seed.staleAfterSeconds * 1000);
  if (life === 'stale') {
    handshakeUntil = start - (seed.staleForSeconds ?? 600) * 1000;
    handshakeFrom = handshakeUntil - phaseMs;
  }
  const init = {
    rxRate: seed.rxRate ?? rng.int(200, 40_000),
    txRate: seed.txRate ?? rng.int(200, 40_000),
    // A tunnel this side wakes is a healthy one: nothing sent while idle before the wake.
    idleTxRate: seed.endpointAddress === undefined || seed.endpointAddress === '' || seed.wake !== undefined ? 0 : 30,
    idleRxRate: seed.idleRxRate ?? 0,
    ...(seed.wake === undefined ? {} : { wakeInitiations: wakeInitiations(start, seed.wake) }),
    periodMs: rng.int(115_000, 125_000),
    phaseMs,
    handshakeFrom,
    handshakeUntil,
    sessionFrom: state.bootAt(),
    rx: 0,
    tx: 0,
    countersAt: state.bootAt(),
    disabled: false,
  };
  const history = new PeerSim(init).counters(start);
  const disabled = seed.disabled === true;
  const sim = new PeerSim({
    ...init,
    rx: seed.rx === undefined ? (disabled ? 0 : history.rx) : toCounter(seed.rx),
    tx: seed.tx === undefined ? (disabled ? 0 : history.tx) : toCounter(seed.tx),
    countersAt: start,
  });
  if (disabled) sim.disable(start);
  return sim;
}

export function applySeed(state: RouterState, seed: RouterSeed, start: number, staleAfterMs: number): void {
  for (const i of seed.interfaces ?? []) {
    state.wireguard.add(
      params({ name: i.name, 'listen-port': i.listenPort, mtu: i.mtu, 'private-key': i.privateKey, comment: i.comment, disabled: i.disabled }),
    );
  }
  const responderKey = atLeast(state.version, '7.17') ? 'responder' : 'is-responder';
  for (const p of seed.peers ?? []) {
    const key = p.publicKey ?? randomPublicKey(state.rng);
    state.peers.addSeeded(
      params({
        interface: p.interface,
        'public-key': key,
        name: p.name,
        comment: p.comment,
        'allowed-address': p.allowedAddress,
        'endpoint-address': p.endpointAddress,
        'endpoint-port': p.endpointPort,
        'persistent-keepalive': p.persistentKeepalive,
        'preshared-key': p.presharedKey,
        disabled: p.disabled,
        [responderKey]: p.responder,
      }),
      peerSim(state, p, key, start, staleAfterMs),
    );
  }
  // Seeded peers come with their simulation made: those of a disabled interface stop as any would.
  for (const i of seed.interfaces ?? []) if (i.disabled === true) state.wgInterfaceSwitched(i.name);
  for (const a of seed.addresses ?? []) {
    state.addresses.add(params({ address: a.address, interface: a.interface, comment: a.comment, disabled: a.disabled }));
  }
  for (const r of seed.routes ?? []) {
    state.routes.add(
      params({ 'dst-address': r.dstAddress, gateway: r.gateway, distance: r.distance, comment: r.comment, disabled: r.disabled }),
    );
  }
  applyInterfaceLists(state, seed);
  for (const f of seed.firewall ?? []) {
    state.filter.add(
      params({
        chain: f.chain,
        action: f.action,
        protocol: f.protocol,
        'dst-port': f.dstPort,
        'src-address': f.srcAddress,
        'dst-address': f.dstAddress,
        'in-interface': f.inInterface,
        'in-interface-list': f.inInterfaceList,
        'connection-state': f.connectionState,
        comment: f.comment,
        disabled: f.disabled,
      }),
    );
  }
}

/** defconf's lists and members: `ether1` in `WAN`, `bridge` in `LAN`. */
const DEFCONF_LISTS = ['WAN', 'LAN'];
const DEFCONF_MEMBERS: readonly [string, string][] = [
  ['LAN', 'bridge'],
  ['WAN', 'ether1'],
];

/** The seeded lists and members, or defconf's (a member only when the router has its interface). */
function applyInterfaceLists(state: RouterState, seed: RouterSeed): void {
  const lists: InterfaceListSeed[] = seed.interfaceLists ?? DEFCONF_LISTS.map((name) => ({ name, comment: 'defconf' }));
  for (const l of lists) state.interfaceLists.add(params({ name: l.name, include: l.include, exclude: l.exclude, comment: l.comment }));
  const interfaces = state.interfaceNames();
  const members: InterfaceListMemberSeed[] =
    seed.interfaceListMembers ??
    DEFCONF_MEMBERS.filter(([list, iface]) => interfaces.includes(iface) && lists.some((l) => l.name === list)).map(([list, iface]) => ({ list, interface: iface, comment: 'defconf' }));
  for (const m of members) {
    state.interfaceListMembers.add(params({ list: m.list, interface: m.interface, comment: m.comment, disabled: m.disabled }));
  }
}
