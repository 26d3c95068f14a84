/**
 * Scrape slots: at most `total` scrapes answered at once, and at most `perClient` of them for one remote
 * address, so one client (or a few connections that stopped reading) cannot take every slot.
 *
 * A slot bounds the work of answering (a render, the rendered body until the kernel has it), not the time a
 * request is open. A request that must wait on something that holds no body — a first probe of a profile
 * target waiting for its first collection, up to the scrape's own timeout — hands its slot back for the wait
 * (ScrapeLease.suspend) and takes one again before it renders (resume). Holding it would let a few first probes
 * of routers that do not answer turn every other scrape away for as long as they wait.
 */
import type { IncomingMessage } from 'node:http';

export class ScrapeSlots {
  readonly #total: number;
  readonly #perClient: number;
  readonly #byClient = new Map<string, number>();
  #taken = 0;

  constructor(total: number, perClient: number) {
    this.#total = total;
    this.#perClient = perClient;
  }

  get taken(): number {
    return this.#taken;
  }

  /** A release function (idempotent), or undefined when the cap or the client's share is reached. */
  take(client: string): (() => void) | undefined {
    const mine = this.#byClient.get(client) ?? 0;
    if (this.#taken >= this.#total || mine >= this.#perClient) return undefined;
    this.#taken++;
    this.#byClient.set(client, mine + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#taken--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left === 0) this.#byClient.delete(client);
      else this.#byClient.set(client, left);
    };
  }

  /** A lease on a slot for one request, registered for scrapeLeaseOf, or undefined when none is free. */
  lease(req: IncomingMessage, client: string): ScrapeLease | undefined {
    const release = this.take(client);
    if (release === undefined) return undefined;
    const lease = new ScrapeLease(() => this.take(client), release);
    leases.set(req, lease);
    return lease;
  }
}

/** One request's hold on a scrape slot, which it may hand back while it waits. */
export class ScrapeLease {
  readonly #take: () => (() => void) | undefined;
  #release: (() => void) | undefined;
  #ended = false;

  constructor(take: () => (() => void) | undefined, release: () => void) {
    this.#take = take;
    this.#release = release;
  }

  /** Hands the slot back for a wait that holds no rendered body. */
  suspend(): void {
    this.#release?.();
    this.#release = undefined;
  }

  /** Takes a slot again after a wait; false when none is free or the request has ended. */
  resume(): boolean {
    if (this.#ended) return false;
    this.#release ??= this.#take();
    return this.#release !== undefined;
  }

  /** The request is done (finished or closed): the slot goes back for good. Idempotent. */
  end(): void {
    this.#ended = true;
    this.suspend();
  }
}

const leases = new WeakMap<IncomingMessage, ScrapeLease>();

/** The scrape slot the guard leased for this request, if it is a scrape behind the guard. */
export function scrapeLeaseOf(req: IncomingMessage): ScrapeLease | undefined {
  return leases.get(req);
}
