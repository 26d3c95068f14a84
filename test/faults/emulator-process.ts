/** The parent side of emulator-child.ts: start emulators in a child process and drive their routers. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EmulatorOptions, Faults } from '../../src/emulator/index.js';

/** Emulator options that cross a process boundary (no functions; the clock is the child's). */
export type PlainEmulatorOptions = Omit<EmulatorOptions, 'now'>;

type Op =
  | { op: 'start'; clock: number; emulators: PlainEmulatorOptions[] }
  | { op: 'faults'; router: string; faults: Faults | Faults[] }
  | { op: 'reboot'; router: string }
  | { op: 'stop'; router: string }
  | { op: 'advance'; ms: number }
  | { op: 'close' };
export type ChildCall = Op & { id: number };
export type ChildAnswer = { id: number; value?: unknown; error?: string };

export interface StartedEmulator {
  ca: string;
  routers: { name: string; url: string }[];
}

export class EmulatorProcess {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly ready: Promise<void>;
  #next = 0;

  constructor() {
    this.#child = fork(fileURLToPath(new URL('./emulator-child.ts', import.meta.url)), [], {
      execArgv: ['--import', import.meta.resolve('tsx')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.#waiting.set(-1, { resolve: () => resolve(), reject });
    });
    this.#child.on('message', (answer: ChildAnswer) => {
      const waiting = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      if (answer.error !== undefined) waiting?.reject(new Error(answer.error));
      else waiting?.resolve(answer.value);
    });
    this.#child.once('exit', (code) => {
      for (const waiting of this.#waiting.values()) waiting.reject(new Error(`emulator process exited (${code ?? 'signal'})`));
      this.#waiting.clear();
    });
  }

  #call(op: Op): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#child.send({ ...op, id } satisfies ChildCall);
    });
  }

  async start(clock: number, emulators: PlainEmulatorOptions[]): Promise<StartedEmulator[]> {
    await this.ready;
    return (await this.#call({ op: 'start', clock, emulators })) as StartedEmulator[];
  }

  setFaults(router: string, faults: Faults | Faults[]): Promise<unknown> {
    return this.#call({ op: 'faults', router, faults });
  }

  reboot(router: string): Promise<unknown> {
    return this.#call({ op: 'reboot', router });
  }

  stop(router: string): Promise<unknown> {
    return this.#call({ op: 'stop', router });
  }

  advance(ms: number): Promise<unknown> {
    return this.#call({ op: 'advance', ms });
  }

  /** Closes the emulators, then ends the process (killed if it does not end by itself). */
  async close(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
      await this.#call({ op: 'close' }).catch(() => undefined);
      this.#child.kill('SIGTERM');
      await exited;
    }
  }
}
