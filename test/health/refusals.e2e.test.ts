/**
 * A permission refusal is an answer, not silence: a user whose group lacks the api policy makes the router
 * "down: refused: the user's group lacks the api policy", and one whose group lacks the test policy makes its
 * pings "could not run on the router (auth): refused: … test policy" — in /health and in `check`, never
 * "no answer since the exporter started". The emulator answers as real RouterOS 7 does (500, detail "… (9)").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ALL_POLICIES } from '../../src/emulator/types.js';
import { createApp, type App } from '../../src/app.js';
import type { Config } from '../../src/config/types.js';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck } from '../../src/health/nagios.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';

const PASSWORD = 'refusal-e2e-secret';
const without = (policy: string): string[] => ALL_POLICIES.filter((name) => name !== policy);
let emulator: Emulator;
let app: App;
let config: Config;

beforeAll(async () => {
  emulator = await startEmulator({
    users: [
      { name: 'no-api', password: PASSWORD, policies: without('api') },
      { name: 'no-test', password: PASSWORD, policies: without('test') },
    ],
    routers: [{ name: 'hq' }],
  });
  const url = emulator.router('hq').url;
  config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { password: PASSWORD, timeout: '3s', tls: { ca_file: writeCa(emulator) }, collectors: { bandwidth_test: false } },
    routers: [
      { name: 'refused-api', url, username: 'no-api', collectors: { ping: false } },
      { name: 'refused-test', url, username: 'no-test', ping: [{ target: '10.0.0.1', count: 1, name: 'lab' }] },
    ],
  });
  app = createApp(config, { logger: captureLogs().logger, jitter: false });
});

afterAll(async () => {
  await app.stop();
  await emulator.close();
});

describe('permission refusals in verdicts', () => {
  it('name the missing policy in /health reasons and in the check output', async () => {
    await app.collectOnce();
    const evaluated = evaluateRouters(config.routers, app.store, Date.now());
    const [api, test] = evaluated.report.routers;
    expect(api?.reasons[0]).toBe("refused-api: down: refused: the user's group lacks the api policy (auth)");
    expect(test?.reasons).toContain("refused-test/ping lab to 10.0.0.1: could not run on the router (auth): refused: the user's group lacks the test policy");
    const text = formatCheck(evaluated, config.routers).text;
    expect(text).toContain("refused: the user's group lacks the api policy");
    expect(text).toContain("refused: the user's group lacks the test policy");
    expect(text).not.toMatch(/no answer since/);
  });
});
