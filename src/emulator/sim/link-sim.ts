/**
 * Lazy simulation of one non-WireGuard interface (ether, bridge, vlan, lo, a PPPoE session): like
 * the peer simulation nothing ticks; bytes and packets are pure functions of the clock, the rates
 * and the link's down intervals, so a router with many interfaces costs nothing between reads.
 *
 * Traffic flows at the seeded rates while the link is up and enabled; the down intervals (seeded
 * link-down events, or ones opened by the control API) add no traffic and count in `link-downs`.
 * Counters start at the last boot (a reboot zeroes them) or freeze while the interface is disabled.
 */

export interface LinkSimInit {
  rxRate: number;
  txRate: number;
  /** Average frame sizes, bytes: packets = bytes / size. */
  rxPacketSize: number;
  txPacketSize: number;
  /** rx-error per million rx packets (drops and tx-queue-drop follow at half that rate). */
  errorsPerMillion: number;
  /** Time from boot (or session start) until the link first came up, ms. */
  upDelayMs: number;
  /** [down, up) instants, ms on the emulator clock; `up` Infinity = still down. */
  downs: [number, number][];
}

export interface LinkCounters {
  rxByte: number;
  txByte: number;
  rxPacket: number;
  txPacket: number;
  rxError: number;
  rxDrop: number;
  txQueueDrop: number;
}

export class LinkSim {
  readonly #init: LinkSimInit;
  readonly #downs: [number, number][];
  /** Bytes accumulated until #countersAt (a disable freezes, a reboot zeroes). */
  #rx = 0;
  #tx = 0;
  #countersAt: number;
  #disabled = false;
  /** Start of the counting epoch: the last boot. link-downs counts events after it. */
  #epoch: number;

  constructor(init: LinkSimInit, bootAt: number) {
    this.#init = init;
    this.#downs = [...init.downs].sort((a, b) => a[0] - b[0]);
    this.#countersAt = bootAt;
    this.#epoch = bootAt;
  }

  get disabled(): boolean {
    return this.#disabled;
  }

  /**
   * The down intervals with overlaps merged (a seeded outage inside a pulled cable is one outage),
   * sorted. Few intervals per link, so merging on each read is cheap.
   */
  #outages(): [number, number][] {
    const out: [number, number][] = [];
    for (const [d, u] of this.#downs) {
      const last = out[out.length - 1];
      if (last !== undefined && d <= last[1]) last[1] = Math.max(last[1], u);
      else out.push([d, u]);
    }
    return out;
  }

  /** Milliseconds of link-up time inside [from, to). */
  #upMs(from: number, to: number): number {
    const start = Math.max(from, this.#epoch + this.#init.upDelayMs);
    if (to <= start) return 0;
    let up = to - start;
    for (const [d, u] of this.#outages()) {
      const lo = Math.max(d, start);
      const hi = Math.min(u, to);
      if (hi > lo) up -= hi - lo;
    }
    return up;
  }

  #bytes(t: number): { rx: number; tx: number } {
    if (this.#disabled || t <= this.#countersAt) return { rx: this.#rx, tx: this.#tx };
    const ms = this.#upMs(this.#countersAt, t);
    return { rx: this.#rx + Math.floor((this.#init.rxRate * ms) / 1000), tx: this.#tx + Math.floor((this.#init.txRate * ms) / 1000) };
  }

  counters(t: number): LinkCounters {
    const { rx, tx } = this.#bytes(t);
    const rxPacket = Math.floor(rx / this.#init.rxPacketSize);
    const txPacket = Math.floor(tx / this.#init.txPacketSize);
    const e = this.#init.errorsPerMillion / 1e6;
    return {
      rxByte: rx,
      txByte: tx,
      rxPacket,
      txPacket,
      rxError: Math.floor(rxPacket * e),
      rxDrop: Math.floor((rxPacket * e) / 2),
      txQueueDrop: Math.floor((txPacket * e) / 2),
    };
  }

  /** The physical link at t (ignores disabled, which the menu handles). */
  up(t: number): boolean {
    if (t < this.#epoch + this.#init.upDelayMs) return false;
    return !this.#outages().some(([d, u]) => d <= t && t < u);
  }

  /** Link-down events since the last boot, up to t. */
  linkDowns(t: number): number {
    let n = 0;
    for (const [d] of this.#outages()) if (d > this.#epoch && d <= t) n++;
    return n;
  }

  lastDownAt(t: number): number | undefined {
    let last: number | undefined;
    for (const [d] of this.#outages()) if (d > this.#epoch && d <= t) last = d;
    return last;
  }

  /** The last time the link came up at or before t (undefined while it never did since boot). */
  lastUpAt(t: number): number | undefined {
    const first = this.#epoch + this.#init.upDelayMs;
    if (t < first) return undefined;
    // The first up counts unless the link was already down then (no cable at boot).
    const outages = this.#outages();
    let last = outages.some(([d, u]) => d <= first && first < u) ? undefined : first;
    for (const [, u] of outages) if (u > first && u <= t && (last === undefined || u > last)) last = u;
    return last;
  }

  /** Control: the cable is pulled (false) or plugged back (true) at t. */
  setLink(up: boolean, t: number): void {
    const open = this.#downs.filter(([d, u]) => d <= t && u > t);
    if (!up && open.length === 0) {
      this.#downs.push([t, Infinity]);
      this.#downs.sort((a, b) => a[0] - b[0]);
    }
    // Plugging back ends every outage in progress (later seeded ones still happen).
    if (up) for (const o of open) o[1] = t;
  }

  disable(t: number): void {
    if (this.#disabled) return;
    const c = this.#bytes(t);
    this.#rx = c.rx;
    this.#tx = c.tx;
    this.#countersAt = t;
    this.#disabled = true;
  }

  enable(t: number): void {
    if (!this.#disabled) return;
    this.#countersAt = t;
    this.#disabled = false;
  }

  reboot(t: number): void {
    this.#rx = 0;
    this.#tx = 0;
    this.#countersAt = t;
    this.#epoch = t;
  }
}
