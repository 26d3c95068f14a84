/**
 * Each wireguard job's rx/tx of the previous run, so the verdict knows whether traffic moved (rxMoved, txMoved),
 * and the handshake time it wrote, so one handshake is written as one time (stableHandshake).
 *
 * Kept in the run's PeerTable (wireguard-peers.ts), the same rows its verdicts read, not as string-keyed entries:
 * at 100 routers × 1,000 peers, two Map entries per peer keyed by `rx interface="…",public_key="…"` held ~33 MB of
 * heap (200,000 key strings, their hash tables and boxed numbers: bench/memory.ts). RouterOS lists peers in the
 * same order run after run, so a peer is found at its previous position; only when the list changed is an index
 * built, for that run alone.
 *
 * The table hangs off the job's memory map (JobContext.memory, kept across runs and reloads), so it lives and
 * dies with the job without another field in the job context.
 */
import { rxUnansweredAt } from '../analysis/liveness.js';
import { peerKey, PeerTable, type PeerFacts, type WireguardPeer } from './wireguard-peers.js';

/**
 * RouterOS gives a handshake's age in whole seconds, so now − age lands anywhere in the second after the handshake:
 * one handshake read in three runs came out as …000, …001, …001 (found by review), and every change looked like a
 * new handshake to changes() and to the expected-by time made from it. A time within this of the one written for
 * the peer last run is that same handshake; a new one is at least 5 s later (WireGuard's retry), 2 min in a session.
 */
const SAME_HANDSHAKE_SECONDS = 1;

const previousRuns = new WeakMap<object, PeerTable>();

/** What CounterMemory.moved tells of a peer's rx and tx since the previous run. */
export interface Movement {
  rxMoved: boolean;
  txMoved: boolean;
  rxMovedUnknown: boolean;
  txMovedUnknown: boolean;
}

/**
 * Whether a counter grew from `before` to `now`. One that fell was reset between the two reads, and every byte it
 * holds now went through since: growth in the window. Taken as "did not grow" (a new baseline), a dead link this side
 * keeps sending to read `never`, not expected, healthy, at the first read after the router restarted, between two
 * pages: a recovery logged and paged again a window later (found by a hostile tester, docs/health.md "Movement").
 */
function grew(now: number, before: number): boolean {
  return now > before || (now < before && now > 0);
}

const NOT_MOVED: Movement = Object.freeze({ rxMoved: false, txMoved: false, rxMovedUnknown: false, txMovedUnknown: false });

/** One run's walk over its peers, in list order: `moved` for each peer, then `finish` to keep them for the next run. */
export class CounterMemory {
  readonly #owner: object | undefined;
  readonly #before: PeerTable | undefined;
  /** This run's rows: `moved` appends one per peer, and the run describes it (PeerTable.describe). */
  readonly table: PeerTable;
  /** Where the peer `moved` was last called for stood in the previous run (undefined: new, or no previous run). */
  #at: number | undefined;
  #row = -1;
  #index: Map<string, number> | undefined;
  /** The window is shorter than the run judges from: movement is carried from the previous run (constructor). */
  readonly #carrying: boolean;
  /** In a carrying run, the previous run's row of the peer `moved` was last called for (undefined: new, or not carrying). */
  #carried: WireguardPeer | undefined;

  /**
   * `owner`: the job's memory map; without one (a single mapping in a test) nothing moved. `capacity`: the most
   * peers the run may have (its reply's records). `readElapsed`: when this run's counters were read on the monotonic
   * clock (performance.now() ms), and `readAt` the same on the wall clock (Unix ms), kept with them so that the next
   * run knows how long its window is (windowSeconds).
   *
   * `minWindowSeconds`: the shortest window this run tells movement from (the daemon's: MIN_COUNTER_WINDOW_SECONDS,
   * two of WireGuard's handshake retries). In a shorter one (a reload that replaced the job runs it at once, a wall
   * clock set back re-runs a slot, a schedule faster than that) a healthy tunnel whose far end is mid-handshake, its
   * response lost, looks like a dead link's (tx grew and rx did not, or rx grew with no session possible) in this
   * window and the one before: a one-run `down`, a recovery logged a run later (found by review). Such a run takes
   * each peer's movement, and whether its rx was an answer, as the previous run judged them (carried, in turn, when
   * that one was short too) and keeps the previous counters and their read time in its table, so the next window
   * runs from there and is long enough; a fresh handshake still counts at once (it is read, not told from counters).
   * A peer new to such a run is new to the next one too (COUNTED_LATE). 0 (`check`, whose looks are short on
   * purpose and which handles them itself): every window is judged.
   */
  constructor(owner: object | undefined, capacity: number, readElapsed?: number, readAt?: number, minWindowSeconds = 0) {
    this.#owner = owner;
    const before = owner === undefined ? undefined : previousRuns.get(owner);
    this.#before = before;
    const start = before?.countersReadElapsed;
    const startAt = before?.countersReadAt;
    const monotonic = start === undefined || readElapsed === undefined ? undefined : Math.max(0, (readElapsed - start) / 1000);
    const wall = startAt === undefined || readAt === undefined ? 0 : (readAt - startAt) / 1000;
    this.windowSeconds = monotonic === undefined ? undefined : Math.max(monotonic, wall);
    this.#carrying = this.windowSeconds !== undefined && this.windowSeconds < minWindowSeconds;
    this.table = this.#carrying ? new PeerTable(capacity, start, startAt) : new PeerTable(capacity, readElapsed, readAt);
  }

  /** Whether this run's window was too short to judge and it carries the previous run's movement (constructor). */
  get carrying(): boolean {
    return this.#carrying;
  }

  /**
   * The window rx and tx grew in, in seconds: from the read of the counters `moved` compares with to this run's, the
   * longer of the monotonic and the wall-clock difference. The monotonic one alone: performance.now() stands still
   * while the host is suspended, so after an hour's suspend the window read 15 s while the router's handshake had
   * aged an hour, its answers were refused and a healthy tunnel paged (found by review); the wall clock alone: one
   * stepped back an hour between two runs made it 0, the same refusal (found by review). The longer is the safe
   * direction: more rx counts as an answer. It covers a host suspended to RAM, whose kernel corrects the wall clock on
   * resume; not a paused VM whose guest wall clock lags until NTP or a guest agent corrects it: until then both clocks
   * miss the pause and the window is short (docs/health.md). Undefined without a previous run (then nothing moved), or when no
   * monotonic read time was given (a wall clock alone cannot be trusted not to have been stepped back). From the last successful run: a run that failed in between kept nothing, and the window
   * spans the gap, as its bits (the previous window's is the one ending at that last successful read).
   */
  readonly windowSeconds: number | undefined;

  /** The row of the peer `moved` was last called for. */
  get row(): number {
    return this.#row;
  }

  /**
   * Whether rx and tx grew since the previous run, and whether that cannot be told: a counter unread (undefined: it
   * did not decode, or was left out) now or in the previous run. A counter that fell was reset in the window (the
   * router restarted, or the peer was disabled and enabled, or removed and added again): what it holds now was counted
   * since, so it grew unless it is 0 (grew). A peer new to the run did not move (the first look: nothing to tell).
   * Call once per distinct peer, in list order.
   */
  moved(iface: string, publicKey: string, rx: number | undefined, tx: number | undefined): Movement {
    const rxNow = rx ?? Number.NaN;
    const txNow = tx ?? Number.NaN;
    const at = this.#find(this.table.length, iface, publicKey);
    this.#at = at;
    this.#carried = undefined;
    const before = this.#before as PeerTable;
    if (this.#carrying) return this.#carry(iface, publicKey, rxNow, txNow, at);
    this.#row = this.table.append(iface, publicKey, rxNow, txNow);
    // A row counted late was read after its table's time: its window is not known, so it is a first look.
    if (at === undefined || before.countedLateAt(at)) return NOT_MOVED;
    const rxBefore = before.rxAt(at);
    const txBefore = before.txAt(at);
    // NaN compares false: an unreadable value is no movement, and says so as unknown.
    return {
      rxMoved: grew(rxNow, rxBefore),
      txMoved: grew(txNow, txBefore),
      rxMovedUnknown: Number.isNaN(rxNow) || Number.isNaN(rxBefore),
      txMovedUnknown: Number.isNaN(txNow) || Number.isNaN(txBefore),
    };
  }

  /**
   * Whether rx that grew was no answer to this side's sending (analysis/liveness.ts rxUnansweredAt) for the peer
   * `moved` was last called for, given its `movement`, its handshake's age as read and whether that was unreadable:
   * decided from this run's window, or, in a carrying run, as the previous run decided it.
   */
  rxUnanswered(movement: Movement, handshakeAgeSeconds: number | undefined, handshakeUnreadable: boolean): boolean {
    if (this.#carried !== undefined) return this.#carried.rxUnanswered === true;
    return !movement.rxMovedUnknown && !handshakeUnreadable && rxUnansweredAt(movement.rxMoved, handshakeAgeSeconds, this.windowSeconds);
  }

  /**
   * The latest-handshake time to write for the peer `moved` was last called for (Unix seconds, whole): the one
   * written last run when `seconds` is the same handshake read a second later or earlier, else `seconds`.
   */
  stableHandshake(seconds: number | undefined): number | undefined {
    const previous = this.#at === undefined ? Number.NaN : (this.#before as PeerTable).handshakeAt(this.#at);
    const written = seconds !== undefined && Math.abs(seconds - previous) <= SAME_HANDSHAKE_SECONDS ? previous : seconds;
    this.table.setHandshake(this.#row, written ?? Number.NaN);
    return written;
  }

  /**
   * Whether the window before this one showed the peer `moved` was last called for sending unanswered (tx grew, rx did
   * not or grew with no session possible): the previous run's row (PeerTable.sendingUnansweredAt).
   */
  unansweredBefore(): boolean {
    if (this.#carried !== undefined) return this.#carried.unansweredBefore === true;
    return this.#at !== undefined && (this.#before as PeerTable).sendingUnansweredAt(this.#at);
  }

  /** Whether the peer `moved` was last called for was judged a problem in the previous run. */
  wasBad(): boolean {
    return this.#at !== undefined && (this.#before as PeerTable).badAt(this.#at);
  }

  /** Describes the row of the peer `moved` was last called for (PeerTable.describe), with its previous run's row. */
  describe(facts: PeerFacts): void {
    this.table.describe(this.#row, facts, this.#at === undefined ? undefined : this.#before, this.#at);
  }

  /** Notes the verdict of the peer `moved` was last called for, for the next run's wasBad. */
  noteBad(bad: boolean): void {
    this.table.setBad(this.#row, bad);
  }

  /**
   * Keeps this run's rows for the next run (peers gone are dropped with the old table) and returns them as kept:
   * the table itself, or its rows alone when repeats left much of it unused (PeerTable.trimmed). Write no more rows.
   */
  finish(): PeerTable {
    const kept = this.table.trimmed();
    if (this.#owner !== undefined) previousRuns.set(this.#owner, kept);
    return kept;
  }

  /**
   * A carrying run's row: the previous run's counters (the next window runs from their read) and movement. A peer
   * new to the run keeps its own counters, marked counted late.
   */
  #carry(iface: string, publicKey: string, rxNow: number, txNow: number, at: number | undefined): Movement {
    if (at === undefined) {
      this.#row = this.table.append(iface, publicKey, rxNow, txNow);
      this.table.markCountedLate(this.#row);
      return NOT_MOVED;
    }
    const before = this.#before as PeerTable;
    this.#row = this.table.append(iface, publicKey, before.rxAt(at), before.txAt(at));
    if (before.countedLateAt(at)) this.table.markCountedLate(this.#row);
    const carried = before.at(at) as WireguardPeer;
    this.#carried = carried;
    return { rxMoved: carried.rxMoved, txMoved: carried.txMoved, rxMovedUnknown: carried.rxMovedUnknown === true, txMovedUnknown: carried.txMovedUnknown === true };
  }

  #find(position: number, iface: string, publicKey: string): number | undefined {
    const before = this.#before;
    if (before === undefined) return undefined;
    if (before.keyAt(position) === publicKey && before.interfaceAt(position) === iface) return position;
    if (this.#index === undefined) {
      this.#index = new Map();
      for (let at = 0; at < before.length; at++) this.#index.set(peerKey(before.interfaceAt(at) ?? '', before.keyAt(at) ?? ''), at);
    }
    return this.#index.get(peerKey(iface, publicKey));
  }
}
