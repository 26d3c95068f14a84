/**
 * A wireguard run's peers as kept until the next run: what health verdicts need of each (WireguardPeer), and what
 * the next run compares against (wireguard-counters.ts: rx, tx, the handshake time written, whether it was bad).
 *
 * Kept as rows in two flat arrays, not as an object per peer: at 100 routers × 1,000 peers an object of sixteen
 * fields per peer held ~15 MB and the counters' own columns ~6 MB more, for the same interfaces, keys and handshake
 * times (bench/memory.ts). Here a peer costs four pointers to strings the reply made anyway and five doubles, and a
 * router two arrays whatever its peers (a fleet of small routers pays per router, not per column). `at` builds a
 * peer's object when a verdict asks for it; those objects live as long as the evaluation that asked.
 */
import { PROBE_OUTCOMES, type ProbeOutcome } from '../analysis/liveness.js';

/**
 * One peer's identity as one string: its interface and public key, both the router's text. The interface name's
 * length goes first: with a bare separator (`\n` once, `|` another time) `a|b` + `c` and `a` + `b|c` were one
 * peer, and a hostile reply that reordered two such peers gave each the other's previous counters (found by review).
 */
export const peerKey = (iface: string, publicKey: string): string => `${iface.length}:${iface}|${publicKey}`;

/**
 * What health verdicts need of a peer, and no more: this is kept for every peer of every router between
 * collections (100,000 of them at scale), while traffic, endpoints and addresses live on as metric bytes.
 */
export interface WireguardPeer {
  interface: string;
  publicKey: string;
  /** name (7.15+), else comment, else ''. */
  name: string;
  comment: string | undefined;
  disabled: boolean;
  /** Unix seconds; undefined when never, or when unreadable. */
  latestHandshake: number | undefined;
  /** The router's last-handshake did not decode: the peer cannot be judged (not "never"). */
  handshakeUnreadable: boolean;
  /** Its disabled or persistent-keepalive, or its interface's disabled, did not decode (or it has a twin): not judged either. */
  factsUnreadable: boolean;
  /** persistent-keepalive in seconds, 0 when off: what the liveness bound is made of. */
  keepaliveSeconds: number;
  /** endpoint-address configured: this side can initiate. */
  hasEndpoint: boolean;
  /** rx / tx grew since the previous collection (false on the first). */
  rxMoved: boolean;
  txMoved: boolean;
  /**
   * Whether rx / tx grew cannot be told: the counter did not decode, in this collection or the one before it. A
   * verdict that hangs on it is not made (judgePeer); before, it read as "did not grow", and a dead tunnel this side
   * kept sending to read idle, healthy (found by a hostile tester).
   */
  rxMovedUnknown?: boolean;
  txMovedUnknown?: boolean;
  /**
   * rx grew in this collection's counter window while no session could exist (analysis/liveness.ts rxUnansweredAt),
   * decided at collection from the handshake's age as read and the window on the monotonic clock: /health, the
   * verdict log and `check` read it and reckon nothing. False when rx did not grow, or when it could not be told.
   */
  rxUnanswered?: boolean;
  /**
   * The window before this one (ending at the previous successful read) showed this side sending unanswered: tx grew,
   * and rx did not, or grew unanswered. This side's sending makes a peer expected only with this too.
   */
  unansweredBefore?: boolean;
  /**
   * `check` only (PeerTable.markUnansweredUnconfirmed): tx grew unanswered (rx did not grow, or grew with no session
   * possible) in check's one window, with no window before seen so, so whether this side's sending went unanswered two
   * windows in a row is not known: judgePeer takes unansweredBefore both ways and leaves unjudged a verdict that hangs
   * on it. Never set by a collection.
   */
  unansweredUnconfirmed?: boolean;
  /**
   * The data-plane probe of this collection, or why the peer was not probed (health.probe, probe_tunnels);
   * undefined for disabled peers and when no probe settings apply.
   */
  probe: ProbeOutcome | undefined;
  /** Unix ms the probe ran (this run, or the run whose result it reused); undefined when not probed. */
  probedAt: number | undefined;
  /** The probe's average round trip (s) and loss (0..1), for probed peers only. */
  probeRttSeconds: number | undefined;
  probeLossRatio: number | undefined;
}

/** A run's peers as verdicts read them: a PeerTable, or (in tests) an array of peers. */
export interface KeptPeers extends Iterable<WireguardPeer> {
  readonly length: number;
  at(index: number): WireguardPeer | undefined;
  entries(): IterableIterator<[number, WireguardPeer]>;
  some(predicate: (peer: WireguardPeer) => boolean): boolean;
}

/** What a row says of its peer beyond what the counters set (PeerTable.describe). */
export type PeerFacts = Omit<WireguardPeer, 'interface' | 'publicKey' | 'latestHandshake'>;

const DISABLED = 1;
const HANDSHAKE_UNREADABLE = 2;
const FACTS_UNREADABLE = 4;
const HAS_ENDPOINT = 8;
const RX_MOVED = 16;
const TX_MOVED = 32;
/** Judged a problem in its run (wireguard-counters.ts: wasBad). */
const BAD = 64;
const RX_MOVED_UNKNOWN = 128;
const TX_MOVED_UNKNOWN = 256;
/** rx grew in the row's window with no session possible (WireguardPeer.rxUnanswered). */
const RX_UNANSWERED = 512;
/** The window before showed this side sending unanswered (WireguardPeer.unansweredBefore). */
const UNANSWERED_BEFORE = 1024;
/** `check`'s one window could not tell whether the window before showed sending unanswered (WireguardPeer.unansweredUnconfirmed). */
const UNANSWERED_UNCONFIRMED = 2048;
/**
 * The row's counters were read later than its table's read time: a peer new to a run whose counter window was too
 * short to judge, whose table keeps the previous counters and their time (wireguard-counters.ts). The next run takes
 * it as new, its first window starting at its own read, not at the table's (the window would be overstated).
 */
const COUNTED_LATE = 4096;

/** Unused rows a kept table may carry without being copied to its size (trimmed): a few repeats are not worth a copy. */
const TRIM_SLACK_ROWS = 16;

/** Slots per row. */
const STRINGS = 4;
const NUMBERS = 5;
const RX = 0;
const TX = 1;
const HANDSHAKE = 2;
const KEEPALIVE = 3;
const FLAGS = 4;

/** Rows in order; at most `capacity` (the reply's peers: twins and repeats take none). */
export class PeerTable implements KeptPeers {
  #length = 0;
  /** Per row: interface, public key, name, comment. */
  readonly #strings: (string | undefined)[];
  /** Per row: rx, tx, the latest-handshake time written (Unix seconds; NaN when none or unreadable), keepalive, flags. */
  readonly #numbers: Float64Array;
  readonly #capacity: number;
  /** PROBE_OUTCOMES' index + 1 (0: none); made at the first probe outcome, as most routers have none. */
  #probes: Uint8Array | undefined;
  /** When a probe ran and what it found, for the few peers probed. */
  #probed: Map<number, { at: number; rttSeconds: number | undefined; lossRatio: number | undefined }> | undefined;
  /**
   * When the rows' counters were read, on the monotonic clock (performance.now() ms; NaN when not given): one number
   * per run, not per peer. The counter memory lives in the process, so a monotonic reading kept with it is good across
   * runs, and a wall clock stepped between them cannot shrink or stretch the window (wireguard-counters.ts).
   */
  readonly #countersReadElapsed: number;
  /**
   * The same read on the wall clock (Unix ms; NaN when not given), one number per run: performance.now() stands still
   * while the host or VM is suspended, the router's handshake ages on, and the window is the longer of the two
   * differences (wireguard-counters.ts).
   */
  readonly #countersReadAt: number;

  /**
   * `countersReadElapsed`, `countersReadAt`: when the reply whose counters the rows hold was read (monotonic ms,
   * wall-clock Unix ms).
   */
  constructor(capacity: number, countersReadElapsed = Number.NaN, countersReadAt = Number.NaN) {
    this.#capacity = capacity;
    this.#countersReadElapsed = countersReadElapsed;
    this.#countersReadAt = countersReadAt;
    this.#strings = new Array<string | undefined>(capacity * STRINGS);
    this.#numbers = new Float64Array(capacity * NUMBERS);
  }

  get length(): number {
    return this.#length;
  }

  /**
   * When the rows' counters were read (monotonic ms); undefined when not given. The next run's growth is told against
   * these counters: its window starts here (CounterMemory.windowSeconds).
   */
  get countersReadElapsed(): number | undefined {
    return Number.isNaN(this.#countersReadElapsed) ? undefined : this.#countersReadElapsed;
  }

  /** When the rows' counters were read on the wall clock (Unix ms); undefined when not given. */
  get countersReadAt(): number | undefined {
    return Number.isNaN(this.#countersReadAt) ? undefined : this.#countersReadAt;
  }

  /** The rows it can hold. */
  get capacity(): number {
    return this.#capacity;
  }

  /** A new row for a peer and its counters (NaN: unreadable); returns its index. */
  append(iface: string, publicKey: string, rx: number, tx: number): number {
    const row = this.#length;
    if (row >= this.#capacity) throw new RangeError(`peer table of ${this.#capacity} rows is full`);
    const strings = row * STRINGS;
    this.#strings[strings] = iface;
    this.#strings[strings + 1] = publicKey;
    this.#strings[strings + 2] = '';
    const numbers = row * NUMBERS;
    this.#numbers[numbers + RX] = rx;
    this.#numbers[numbers + TX] = tx;
    this.#numbers[numbers + HANDSHAKE] = Number.NaN;
    this.#length = row + 1;
    return row;
  }

  setHandshake(row: number, seconds: number): void {
    this.#numbers[row * NUMBERS + HANDSHAKE] = seconds;
  }

  /**
   * Every row's rx and tx growth made unknown, and whether the window before showed this side sending unanswered
   * (none was seen): `check` marks the peers of a run it could not look at a second time (judgePeer then leaves
   * unjudged those whose verdict hangs on it). Not the growth alone: this side's sending makes a peer expected only
   * over two windows, and with the window before taken as not unanswered, every growth read idle, a dead site link OK.
   */
  markTrafficUnseen(): void {
    for (let row = 0; row < this.#length; row++) this.#numbers[row * NUMBERS + FLAGS] = this.#flagsAt(row) | RX_MOVED_UNKNOWN | TX_MOVED_UNKNOWN | UNANSWERED_UNCONFIRMED;
  }

  /**
   * `check`'s one window: its two looks ~6 s apart tell growth over one window, never two, so this side's sending
   * unanswered there (tx grown, rx not grown or grown with no session possible) cannot be confirmed as a dead link nor
   * dismissed as a handshake in flight (its response lost, or the far end's not yet answered). The rows showing it (an
   * endpoint, tx grown and told, not answered, the window before not seen unanswered) are flagged so
   * (unansweredUnconfirmed: whether the window before showed it is not known), so that judgePeer leaves unjudged those
   * whose verdict hangs on it (WARNING, not OK nor CRITICAL); their growth stays as told, and they count as sending
   * unanswered for the next look (sendingUnansweredAt).
   * `windowBeforeCounts` false: the window is too short to confirm what the window before showed (check's third look
   * under MIN_CONFIRMING_WINDOW_MS), so rows the window before showed sending unanswered are marked too, as if it
   * had not been seen. Returns how many rows it marked.
   */
  markUnansweredUnconfirmed(windowBeforeCounts = true): number {
    let marked = 0;
    const sending = HAS_ENDPOINT | TX_MOVED;
    for (let row = 0; row < this.#length; row++) {
      const flags = this.#flagsAt(row);
      if ((flags & sending) !== sending || (flags & TX_MOVED_UNKNOWN) !== 0) continue;
      if ((flags & RX_MOVED) !== 0 && (flags & RX_UNANSWERED) === 0) continue;
      if (windowBeforeCounts && (flags & UNANSWERED_BEFORE) !== 0) continue;
      this.#numbers[row * NUMBERS + FLAGS] = (flags & ~UNANSWERED_BEFORE) | UNANSWERED_UNCONFIRMED;
      marked++;
    }
    return marked;
  }

  /**
   * Whether the row's window showed this side sending unanswered: tx grew, and rx did not or grew with no session
   * possible (the next run's unansweredBefore). A window whose growth could not be told (a counter that did not
   * decode, in it or at its start) says nothing either way: the last window told before it stands for it (the row's
   * own unansweredBefore). Taken as "not unanswered", a dead link this side keeps trying, down, then a reply leaving
   * its tx out (not judged for two runs), read idle for two runs after: a recovery logged between two pages, where
   * the rule that made one window enough kept it down (found writing the two-window rule). The cost: a healthy tunnel
   * caught mid-handshake on both sides of such a window (its response lost each time) reads down for a run.
   */
  sendingUnansweredAt(row: number): boolean {
    if (row >= this.#length) return false;
    const flags = this.#flagsAt(row);
    if ((flags & (RX_MOVED_UNKNOWN | TX_MOVED_UNKNOWN)) !== 0) return (flags & UNANSWERED_BEFORE) !== 0;
    if ((flags & TX_MOVED) === 0) return false;
    return (flags & RX_MOVED) === 0 || (flags & RX_UNANSWERED) !== 0;
  }

  /** Marks the row COUNTED_LATE (its counters read after the table's read time). */
  markCountedLate(row: number): void {
    this.#numbers[row * NUMBERS + FLAGS] = this.#flagsAt(row) | COUNTED_LATE;
  }

  /** Whether the row's counters were read after its table's read time (COUNTED_LATE): the next run takes it as new. */
  countedLateAt(row: number): boolean {
    return row < this.#length && (this.#flagsAt(row) & COUNTED_LATE) !== 0;
  }

  setBad(row: number, bad: boolean): void {
    const flags = this.#flagsAt(row);
    this.#numbers[row * NUMBERS + FLAGS] = bad ? flags | BAD : flags & ~BAD;
  }

  /**
   * The rest of a row's facts, once its verdict is made (the bad and counted-late flags are kept; a second
   * description replaces the first). `before` and `at`: the peer's row in the previous run's table, whose strings
   * the row takes where they are equal (shareStrings); two arguments rather than an object, which was one more per
   * peer and run.
   */
  describe(row: number, facts: PeerFacts, before?: PeerTable, at?: number): void {
    const strings = row * STRINGS;
    this.#strings[strings + 2] = facts.name;
    this.#strings[strings + 3] = facts.comment;
    if (before !== undefined && at !== undefined) this.#shareStrings(row, before, at);
    this.#numbers[row * NUMBERS + KEEPALIVE] = facts.keepaliveSeconds;
    this.#numbers[row * NUMBERS + FLAGS] =
      (this.#flagsAt(row) & (BAD | COUNTED_LATE)) |
      (facts.disabled ? DISABLED : 0) |
      (facts.handshakeUnreadable ? HANDSHAKE_UNREADABLE : 0) |
      (facts.factsUnreadable ? FACTS_UNREADABLE : 0) |
      (facts.hasEndpoint ? HAS_ENDPOINT : 0) |
      (facts.rxMoved ? RX_MOVED : 0) |
      (facts.txMoved ? TX_MOVED : 0) |
      (facts.rxMovedUnknown === true ? RX_MOVED_UNKNOWN : 0) |
      (facts.txMovedUnknown === true ? TX_MOVED_UNKNOWN : 0) |
      (facts.rxUnanswered === true ? RX_UNANSWERED : 0) |
      (facts.unansweredBefore === true ? UNANSWERED_BEFORE : 0);
    // A row described again reads as the last description: none of an earlier probe is left behind.
    if (facts.probe !== undefined) (this.#probes ??= new Uint8Array(this.#capacity))[row] = PROBE_OUTCOMES.indexOf(facts.probe) + 1;
    else if (this.#probes !== undefined) this.#probes[row] = 0;
    if (facts.probedAt !== undefined) {
      (this.#probed ??= new Map()).set(row, { at: facts.probedAt, rttSeconds: facts.probeRttSeconds, lossRatio: facts.probeLossRatio });
    } else this.#probed?.delete(row);
  }

  /**
   * Takes the strings of row `at` of `before` (the previous run's table) for the row where they are equal, so that
   * the reply's copies die young: a table lives a whole run, long enough for V8 to move its strings to the old
   * generation, where each run's replaced copies (interface, key, name, comment: ~8 MB at 100 routers × 1,000
   * peers) then waited for a full collection. A peer mostly reads the same run after run.
   */
  #shareStrings(row: number, before: PeerTable, at: number): void {
    const strings = row * STRINGS;
    const previous = at * STRINGS;
    for (let slot = 0; slot < STRINGS; slot++) {
      const kept = before.#strings[previous + slot];
      if (kept === this.#strings[strings + slot]) this.#strings[strings + slot] = kept;
    }
  }

  /**
   * This table, or a copy of its rows alone when much of its capacity went unused: a table is sized by its reply's
   * records, and repeats and twins take no row, so a reply repeating one peer a million times would otherwise keep
   * ~72 MB of empty rows until the next run.
   */
  trimmed(): PeerTable {
    if (this.#capacity - this.#length <= TRIM_SLACK_ROWS + this.#length / 8) return this;
    const copy = new PeerTable(this.#length, this.#countersReadElapsed, this.#countersReadAt);
    copy.#length = this.#length;
    for (let slot = 0; slot < this.#length * STRINGS; slot++) copy.#strings[slot] = this.#strings[slot];
    copy.#numbers.set(this.#numbers.subarray(0, this.#length * NUMBERS));
    if (this.#probes !== undefined) copy.#probes = this.#probes.slice(0, this.#length);
    if (this.#probed !== undefined) copy.#probed = new Map(this.#probed);
    return copy;
  }

  interfaceAt(row: number): string | undefined {
    return row < this.#length ? this.#strings[row * STRINGS] : undefined;
  }

  keyAt(row: number): string | undefined {
    return row < this.#length ? this.#strings[row * STRINGS + 1] : undefined;
  }

  rxAt(row: number): number {
    return row < this.#length ? (this.#numbers[row * NUMBERS + RX] as number) : Number.NaN;
  }

  txAt(row: number): number {
    return row < this.#length ? (this.#numbers[row * NUMBERS + TX] as number) : Number.NaN;
  }

  handshakeAt(row: number): number {
    return row < this.#length ? (this.#numbers[row * NUMBERS + HANDSHAKE] as number) : Number.NaN;
  }

  badAt(row: number): boolean {
    return row < this.#length && (this.#flagsAt(row) & BAD) !== 0;
  }

  at(index: number): WireguardPeer | undefined {
    const row = index < 0 ? index + this.#length : index;
    if (!Number.isInteger(row) || row < 0 || row >= this.#length) return undefined;
    const flags = this.#flagsAt(row);
    const handshake = this.#numbers[row * NUMBERS + HANDSHAKE] as number;
    const probeCode = this.#probes?.[row] ?? 0;
    const probed = this.#probed?.get(row);
    const strings = row * STRINGS;
    // One literal of fixed shape with every field: verdicts read many of these per evaluation.
    return {
      interface: this.#strings[strings] as string,
      publicKey: this.#strings[strings + 1] as string,
      name: this.#strings[strings + 2] as string,
      comment: this.#strings[strings + 3],
      disabled: (flags & DISABLED) !== 0,
      latestHandshake: Number.isNaN(handshake) ? undefined : handshake,
      handshakeUnreadable: (flags & HANDSHAKE_UNREADABLE) !== 0,
      factsUnreadable: (flags & FACTS_UNREADABLE) !== 0,
      keepaliveSeconds: this.#numbers[row * NUMBERS + KEEPALIVE] as number,
      hasEndpoint: (flags & HAS_ENDPOINT) !== 0,
      rxMoved: (flags & RX_MOVED) !== 0,
      txMoved: (flags & TX_MOVED) !== 0,
      rxMovedUnknown: (flags & RX_MOVED_UNKNOWN) !== 0,
      txMovedUnknown: (flags & TX_MOVED_UNKNOWN) !== 0,
      rxUnanswered: (flags & RX_UNANSWERED) !== 0,
      unansweredBefore: (flags & UNANSWERED_BEFORE) !== 0,
      unansweredUnconfirmed: (flags & UNANSWERED_UNCONFIRMED) !== 0,
      probe: probeCode === 0 ? undefined : PROBE_OUTCOMES[probeCode - 1],
      probedAt: probed?.at,
      probeRttSeconds: probed?.rttSeconds,
      probeLossRatio: probed?.lossRatio,
    };
  }

  *entries(): IterableIterator<[number, WireguardPeer]> {
    for (let row = 0; row < this.#length; row++) yield [row, this.at(row) as WireguardPeer];
  }

  *[Symbol.iterator](): IterableIterator<WireguardPeer> {
    for (let row = 0; row < this.#length; row++) yield this.at(row) as WireguardPeer;
  }

  some(predicate: (peer: WireguardPeer) => boolean): boolean {
    for (let row = 0; row < this.#length; row++) if (predicate(this.at(row) as WireguardPeer)) return true;
    return false;
  }

  #flagsAt(row: number): number {
    return this.#numbers[row * NUMBERS + FLAGS] as number;
  }
}
