/** What a console command receives, and the timer helpers that make commands take real time. */
import type { JsonReply } from '../rest/json-out.js';
import type { Params } from '../rest/values.js';
import type { RouterState } from '../state/router-state.js';
import type { User } from '../state/users.js';

export interface CommandContext {
  readonly state: RouterState;
  readonly params: Params;
  readonly user: User;
  /** Aborted when the command cap fires, the client goes away or the emulator closes. */
  readonly signal: AbortSignal;
}

export type Command = (ctx: CommandContext) => Promise<JsonReply> | JsonReply;

export interface CommandNode {
  readonly run: Command;
  /** The user policy the command needs (real-formats §9: `test` for ping and btest). */
  readonly policy: string;
}

/** Resolves after `ms`, or rejects with the signal's reason when aborted first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** An unbounded command (ping without count): only the cap or an abort ends it. */
export function forever(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export function checkKnown(params: Params, known: ReadonlySet<string>, unknown: (name: string) => Error): void {
  for (const name of params.keys()) if (!known.has(name)) throw unknown(name);
}
