/**
 * The verdict-change log over a store, for tests: snapshots recorded as runs of one router at given times, and
 * the messages it logged.
 */
import pino from 'pino';
import { SnapshotStore, type JobOutcome, type JobSnapshot } from '../../src/metrics/store.js';
import { watchVerdicts } from '../../src/health/watch.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import type { Config } from '../../src/config/types.js';
import { T0 } from './snapshots.js';

export function verdictLog(config: Config, name = 'hq') {
  const router = config.routers.find((each) => each.name === name);
  if (router === undefined) throw new Error(`no router ${name}`);
  const messages: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) });
  const store = new SnapshotStore();
  store.plan(new Map([[name, jobsFor(router).map((job) => ({ collector: job.collector, job: job.job }))]]));
  let now = T0;
  const watch = watchVerdicts({ store, config: () => config, logger, now: () => now });
  const record = (snapshot: JobSnapshot, at: number): void => {
    now = at;
    const outcome: JobOutcome = { router: name, collector: snapshot.collector, job: snapshot.job, ok: snapshot.ok, finishedAt: at, durationSeconds: 0.1, data: snapshot.data, ...(snapshot.reason === undefined ? {} : { reason: snapshot.reason }) };
    store.record(outcome);
  };
  return { messages, record, settled: () => watch.settled(), stop: () => watch.stop() };
}
