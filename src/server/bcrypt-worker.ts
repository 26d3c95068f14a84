/**
 * bcrypt checks off the event loop. bcryptjs spends ~100 ms of CPU per check at cost 10 in one slice, so on
 * the main thread each wrong guess would stall every scrape; one worker thread does them in turn instead,
 * and a bounded queue turns a flood away rather than letting it grow.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// The worker is given as source (CommonJS) so it runs the same from src under a test runner and from dist.
const source = (bcryptPath: string): string => `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(bcryptPath)});
parentPort.on('message', ({ id, password, hash }) => {
  let ok = false;
  try { ok = bcrypt.compareSync(password, hash); } catch { ok = false; }
  parentPort.postMessage({ id, ok });
});`;

export class BcryptWorker {
  readonly #maxPending: number;
  readonly #pending = new Map<number, { resolve: (ok: boolean) => void; reject: (error: Error) => void }>();
  #worker: Worker | undefined;
  #nextId = 0;

  constructor(maxPending: number) {
    this.#maxPending = maxPending;
  }

  /** False when the queue is full: the caller answers "retry later" instead of waiting. */
  get available(): boolean {
    return this.#pending.size < this.#maxPending;
  }

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, password, hash });
    });
  }

  /** Stops the worker; a later compare starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(source(createRequire(import.meta.url).resolve('bcryptjs')), { eval: true });
    // Never what keeps the process alive: shutdown must not wait on it.
    worker.unref();
    worker.on('message', ({ id, ok }: { id: number; ok: boolean }) => {
      this.#pending.get(id)?.resolve(ok);
      this.#pending.delete(id);
    });
    const fail = (error: Error): void => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiting of this.#pending.values()) waiting.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`bcrypt worker exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }
}
