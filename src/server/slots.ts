/**
 * Scrape slots: at most `total` scrapes answered at once, and at most `perClient` of them for one remote
 * address, so one client (or a few connections that stopped reading) cannot take every slot.
 */
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
}
