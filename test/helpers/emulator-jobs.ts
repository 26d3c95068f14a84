/**
 * A collector's job run once against an emulated router over real HTTPS, as the scheduler would run it (a real
 * RouterOsClient trusting the emulator's CA, a fresh context). The clients it opens are closed by close().
 */
import type { Collector, JobContext, JobResult } from '../../src/collectors/types.js';
import type { Emulator } from '../../src/emulator/index.js';
import { routerLabel } from '../../src/metrics/family.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { testRouter } from './config.js';

export class EmulatorJobs {
  readonly #clients: RouterOsClient[] = [];

  /** `emulator` is read at each call: suites start it in beforeAll. */
  constructor(private readonly emulator: () => Emulator) {}

  /** A client of the named emulated router, closed by close(). */
  client(name: string, { user = 'admin', password = '', timeoutMs = 5_000 }: { user?: string; password?: string; timeoutMs?: number } = {}): RouterOsClient {
    const emulator = this.emulator();
    const client = new RouterOsClient({ url: emulator.router(name).url, username: user, password: new Secret(password), timeoutMs, tls: { ca: emulator.ca } });
    this.#clients.push(client);
    return client;
  }

  /** Runs the collector's first job for the named router once. */
  async run<Data>(collector: Collector<Data>, name: string, user = 'admin', password = ''): Promise<JobResult<Data>> {
    const router = testRouter({ name, url: this.emulator().router(name).url });
    const [job] = collector.jobs(router);
    if (job === undefined) throw new Error(`no ${collector.name} job`);
    const context: JobContext = {
      router,
      client: this.client(name, { user, password }),
      routerLabel: routerLabel(name),
      now: () => Date.now(),
      signal: new AbortController().signal,
      memory: new Map(),
    };
    return job.run(context);
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.splice(0).map((client) => client.close()));
  }
}
