/**
 * A router's connections of one kind: its one read connection, or its console commands' (ping, bandwidth-test) up
 * to `connections`. Each is an undici Client made on first use (~2 KiB idle, where a Pool preallocates a 2,048-slot
 * queue: ~18 KiB per router), lent to one request at a time in turn (turns.ts), dropped after a request that got no
 * reply (a Client whose connect failed, a certificate for another name, could hold the next request past its
 * timeout), and kept warm across a cycle on its own (keep-warm.ts): a command connection left to the router's
 * keep-alive reconnected at each ping, a TLS resumption and a login line in the router's log per cycle.
 */
import { Client } from 'undici';
import { KeepWarm } from './keep-warm.js';
import { Turns } from './turns.js';

export type LaneKind = 'read' | 'command';

export class Lane {
  readonly kind: LaneKind;
  readonly turns: Turns;
  readonly #origin: string;
  readonly #options: Client.Options;
  readonly #sendKeepWarm: (lane: Lane, slot: number, timeoutMs: number) => void;
  readonly #clients: (Client | undefined)[] = [];
  /** Whether each connection's socket is open now (undici's connect and disconnect events). */
  readonly #connected: boolean[] = [];
  readonly #warmers: (KeepWarm | undefined)[] = [];

  /** `sendKeepWarm(lane, slot, timeoutMs)` makes the keep-warm read over this lane's connection `slot` (keep-warm.ts's `send`). */
  constructor(kind: LaneKind, slots: number, origin: string, options: Client.Options, sendKeepWarm: (lane: Lane, slot: number, timeoutMs: number) => void) {
    this.kind = kind;
    // A request takes an open connection first, and waits for one a keep-warm read holds rather than connecting.
    this.turns = new Turns(slots, (slot) => this.#connected[slot] === true);
    this.#origin = origin;
    this.#options = options;
    this.#sendKeepWarm = sendKeepWarm;
  }

  /** Connection `slot`, made now if it is not open; made after close, destroyed at once, so its request fails. */
  client(slot: number, closed: boolean): Client {
    let client = this.#clients[slot];
    if (client === undefined) {
      const made = new Client(this.#origin, this.#options);
      // A dropped Client's late events are not its successor's.
      made.on('connect', () => {
        if (this.#clients[slot] === made) this.#connected[slot] = true;
      });
      made.on('disconnect', () => {
        if (this.#clients[slot] === made) this.#connected[slot] = false;
      });
      this.#clients[slot] = client = made;
    }
    if (closed && !client.destroyed) void client.destroy();
    return client;
  }

  /** Whether connection `slot` has been made and not dropped. */
  has(slot: number): boolean {
    return this.#clients[slot] !== undefined;
  }

  /** Forgets `client`, over which no reply came, so the next request on its slot gets a fresh one. */
  drop(client: Client, slot: number): void {
    if (this.#clients[slot] !== client) return;
    this.#clients[slot] = undefined;
    this.#connected[slot] = false;
    void client.destroy().catch(() => undefined);
  }

  /** The keep-warm timing of connection `slot`. */
  warmer(slot: number): KeepWarm {
    return (this.#warmers[slot] ??= new KeepWarm((timeoutMs) => this.#sendKeepWarm(this, slot, timeoutMs)));
  }

  /** Cancels every keep-warm read and closes every connection; requests in flight fail. */
  async close(): Promise<void> {
    for (const warmer of this.#warmers) warmer?.cancel();
    await Promise.all(this.#clients.map((client) => client?.destroy()));
  }
}
