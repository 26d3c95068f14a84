/**
 * `interface/wireguard/peers` with the real 7.x wire format (real-formats §3): version-gated keys,
 * `last-handshake` as an age that is absent when there never was one, decimal 64-bit rx/tx,
 * `current-endpoint-*` as ""/"0" until a handshake, keepalive absent when 0.
 */
import { badRequest } from '../rest/errors.js';
import type { Params } from '../rest/values.js';
import type { Entry } from '../state/table.js';
import { PeerSim } from '../sim/peer-sim.js';
import type { Row } from '../types.js';
import { formatSeconds } from '../util/duration.js';
import { isIp } from '../util/ip.js';
import { hash32 } from '../util/rng.js';
import { atLeast } from '../util/version.js';
import { base64Key, bool, comment, int, prefixList, reference, seconds, text } from './fields.js';
import { RecordMenu } from './record-menu.js';
import type { RouterContext, View } from './types.js';

/** Read-only keys computed from the simulation at every read. */
const DERIVED = ['dynamic', 'current-endpoint-address', 'current-endpoint-port', 'last-handshake', 'rx', 'tx'];

export interface PeerEntry extends Entry {
  sim: PeerSim;
  /** Where the remote appears from when it roams (no configured endpoint IP). */
  readonly roamAddress: string;
  readonly roamPort: number;
}

/** A peer that nobody answers: what a peer added over REST is until a real remote exists. */
export function silentSim(now: number, bootAt: number, endpointKnown: boolean): PeerSim {
  return new PeerSim({
    rxRate: 0,
    txRate: 0,
    idleTxRate: endpointKnown ? 30 : 0,
    periodMs: 120_000,
    phaseMs: 0,
    handshakeFrom: Infinity,
    handshakeUntil: Infinity,
    sessionFrom: bootAt,
    rx: 0,
    tx: 0,
    countersAt: now,
    disabled: false,
  });
}

export class PeersMenu extends RecordMenu<PeerEntry> {
  readonly named: boolean;
  readonly removable = true;
  /** `interface|public-key` of every peer: WireGuard allows a key once per interface. */
  readonly #keys = new Set<string>();
  /** Behaviour for the peer being added by addSeeded (REST-added peers get a silent one). */
  #pendingSim: PeerSim | undefined;

  constructor(router: RouterContext) {
    super(router, {
      fields: {
        interface: reference(() => router.wgInterfaceNames()),
        'public-key': base64Key(),
        'allowed-address': prefixList(),
        'endpoint-address': text({ def: '' }),
        'endpoint-port': int(0, 65535, 0),
        'persistent-keepalive': seconds(65535),
        'preshared-key': base64Key({ def: '', sensitive: true }),
        comment: comment(),
        disabled: bool('false'),
        'private-key': base64Key({ def: '', sensitive: true, since: '7.12' }),
        'client-address': text({ hideIf: '', since: '7.12' }),
        'client-dns': text({ hideIf: '', since: '7.12' }),
        'client-endpoint': text({ def: '', since: '7.12' }),
        'client-keepalive': seconds(65535, { since: '7.12' }),
        'client-listen-port': int(0, 65535, undefined, { hideIf: '0', since: '7.12' }),
        name: text({ since: '7.15' }),
        'is-responder': bool('false', { hideIf: 'false', since: '7.15', until: '7.17' }),
        responder: bool('false', { hideIf: 'false', since: '7.17' }),
        'client-allowed-address': prefixList({ def: '::/0', since: '7.21' }),
      },
      derived: DERIVED,
      readOnly: DERIVED,
      required: ['interface', 'public-key'],
    });
    this.named = atLeast(router.version, '7.15');
  }

  protected override check(values: Record<string, string>, existing: PeerEntry | undefined): void {
    if (this.named && (values['name'] === undefined || values['name'] === '')) {
      values['name'] = `peer${existing?.id ?? this.table.nextId()}`;
    }
    const key = `${values['interface']}|${values['public-key']}`;
    const before = existing === undefined ? undefined : `${existing.values['interface']}|${existing.values['public-key']}`;
    if (key !== before && this.#keys.has(key)) throw badRequest('failure: peer with the same public key already exists');
  }

  protected create(id: number, values: Record<string, string>): PeerEntry {
    this.#keys.add(`${values['interface']}|${values['public-key']}`);
    const h = hash32(values['public-key'] ?? '', id);
    let sim = this.#pendingSim;
    if (sim === undefined) {
      sim = silentSim(this.router.now(), this.router.bootAt(), values['endpoint-address'] !== '');
      if (this.#stopped(values)) sim.disable(this.router.now());
    }
    return {
      id,
      values,
      sim,
      roamAddress: `203.0.113.${1 + (h % 254)}`,
      roamPort: 1024 + (Math.floor(h / 254) % 64000),
    };
  }

  protected override update(entry: PeerEntry, values: Record<string, string>, changed: ReadonlySet<string>): void {
    this.#keys.delete(`${entry.values['interface']}|${entry.values['public-key']}`);
    this.#keys.add(`${values['interface']}|${values['public-key']}`);
    entry.values = values;
    if (changed.has('disabled') || changed.has('interface')) this.follow(entry);
  }

  /** A peer passes no packet while it is disabled, or its interface is disabled or gone. */
  #stopped(values: Readonly<Record<string, string>>): boolean {
    return values['disabled'] === 'true' || this.router.wgInterfaceDown(values['interface'] ?? '');
  }

  /** Stops or restarts a peer's simulation as it and its interface are now. */
  follow(entry: PeerEntry): void {
    if (this.#stopped(entry.values)) entry.sim.disable(this.router.now());
    else entry.sim.enable(this.router.now());
  }

  override remove(id: number): void {
    const entry = this.table.get(id);
    super.remove(id);
    if (entry !== undefined) this.#keys.delete(`${entry.values['interface']}|${entry.values['public-key']}`);
  }

  /** Adds a scenario peer with its simulated behaviour. */
  addSeeded(params: Params, sim: PeerSim): number {
    this.#pendingSim = sim;
    try {
      return this.add(params);
    } finally {
      this.#pendingSim = undefined;
    }
  }

  protected override derived(entry: PeerEntry, view: View, row: Row): void {
    const { rx, tx } = entry.sim.counters(view.now);
    row['rx'] = String(rx);
    row['tx'] = String(tx);
    row['dynamic'] = 'false';
    const at = entry.sim.lastHandshakeAt(view.now);
    if (at === undefined) {
      row['current-endpoint-address'] = '';
      row['current-endpoint-port'] = '0';
      return;
    }
    row['last-handshake'] = formatSeconds((view.now - at) / 1000);
    const configured = entry.values['endpoint-address'] ?? '';
    const port = entry.values['endpoint-port'] ?? '0';
    const fixed = isIp(configured) && port !== '0';
    row['current-endpoint-address'] = fixed ? configured : entry.roamAddress;
    // A peer reached at a configured host name answers from its listen port, the configured one: only the address
    // is the name's (here a stand-in). A roaming peer's port is whatever its NAT gave it.
    row['current-endpoint-port'] = configured !== '' && port !== '0' ? port : String(entry.roamPort);
  }

  renameInterface(from: string, to: string): void {
    for (const e of this.entries()) {
      if (e.values['interface'] !== from) continue;
      this.#keys.delete(`${from}|${e.values['public-key']}`);
      this.#keys.add(`${to}|${e.values['public-key']}`);
    }
    this.renameIn(['interface'], from, to);
  }
}
