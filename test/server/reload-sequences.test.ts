/**
 * Reloads asked for in any order with the config file edited between them (valid and invalid edits) and its reads
 * finishing whenever they do, generated. Whatever the interleaving: reads of the file never overlap, every request is
 * answered (never a rejection), a request made after an edit is answered by a read of that edit or a later one, and
 * once everything settles the running configuration is the file's last valid content that a reload read. Before
 * this, pipelined reloads had case tests only.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { ConfigError, type Config } from '../../src/config/types.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

/** The file's content at one version: valid ones name their router after the version. */
function configOf(version: number): Config {
  return testConfig({
    listen: '127.0.0.1:0',
    routers: [{ name: `v${String(version)}`, url: 'https://192.0.2.1', username: 'u', password: 'reload-sequence-pw' }],
  });
}

type Step = { kind: 'reload' } | { kind: 'edit'; valid: boolean } | { kind: 'finish-read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'reload' as const }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('edit' as const), valid: fc.boolean() }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'finish-read' as const }), weight: 3 },
);

/** Lets every settled promise's callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let app: App | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe('reloads in any order, with edits between them', () => {
  it('read the file one at a time, answer every request from a read after it, and end on the last valid content read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        await app?.stop();
        /** The file: its version and whether that version is valid. */
        let disk = { version: 0, valid: true };
        /** Each version's validity, fixed when it is written. */
        const validity = new Map<number, boolean>([[0, true]]);
        let reading = 0;
        let overlapped = false;
        /** Reads begun and not finished, oldest first, each with the version it read. */
        const reads: { version: number; valid: boolean; finish: () => void }[] = [];
        /** Every read's version, in the order they began. */
        const readVersions: number[] = [];
        app = createApp(configOf(0), {
          logger: captureLogs().logger,
          triggerFactory: new ManualTriggers().factory,
          jitter: false,
          // A clock that never moves: no reload is paced, so the order is all that varies.
          elapsed: () => 0,
          loadConfig: () => {
            const read = { ...disk };
            readVersions.push(read.version);
            reading++;
            if (reading > 1) overlapped = true;
            return new Promise<Config>((resolve, reject) => {
              reads.push({
                ...read,
                finish: () => {
                  reading--;
                  if (read.valid) resolve(configOf(read.version));
                  else reject(new ConfigError('<generated>', [{ path: 'routers', message: `version ${String(read.version)} is invalid` }]));
                },
              });
            });
          },
        });
        /** Each request, with the file's version when it was made and, once answered, how many reads had begun then. */
        const requests: { madeAt: number; readsBefore: number; answered: boolean; rejected: boolean }[] = [];
        for (const one of steps) {
          if (one.kind === 'reload') {
            const request = { madeAt: disk.version, readsBefore: readVersions.length, answered: false, rejected: false };
            requests.push(request);
            app.reload().then(
              () => (request.answered = true),
              () => (request.rejected = true),
            );
          } else if (one.kind === 'edit') {
            disk = { version: disk.version + 1, valid: one.valid };
            validity.set(disk.version, one.valid);
          } else {
            reads.shift()?.finish();
          }
          await settle();
        }
        // Every read still running finishes, and the reads queued behind them.
        for (let rounds = 0; reads.length > 0 || requests.some((r) => !r.answered && !r.rejected); rounds++) {
          expect(rounds).toBeLessThan(100);
          reads.shift()?.finish();
          await settle();
        }
        expect(overlapped).toBe(false);
        expect(requests.filter((r) => r.rejected)).toEqual([]);
        // A request made at a version is answered by a read that began after it, so of that version or later.
        for (const request of requests) {
          const after = readVersions.slice(request.readsBefore);
          expect(after.length).toBeGreaterThan(0);
          expect(Math.max(...after)).toBeGreaterThanOrEqual(request.madeAt);
        }
        // What runs: the last valid version a read took, or the first config when none was valid.
        const validRead = readVersions.filter((version) => validity.get(version) === true);
        const expected = validRead.length === 0 ? 0 : (validRead.at(-1) as number);
        expect(app.config().routers.map((router) => router.name)).toEqual([`v${String(expected)}`]);
        await app.stop();
        app = undefined;
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
