/**
 * The redaction registry across reloads through the app (found by review): a reload that fails or is refused leaves
 * the running config's passwords kept, and repeated ones do not grow the registry without bound.
 */
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ConfigError, type Config } from '../../src/config/types.js';
import { MAX_SECRETS, basicEncoding, redactSecrets, registeredSecretCount, registerSecret } from '../../src/util/redact.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const RUNNING = 'Running-Router-Pw-4711!';

function configWith(password: string): Config {
  return testConfig({ defaults: { username: 'monitor', password, timeout: '2s' }, routers: [{ name: 'hq', url: 'https://192.0.2.1' }] });
}

it('a refused reload keeps the running passwords, and refused reloads that register much keep the registry bounded', async () => {
  let round = 0;
  const app = createApp(configWith(RUNNING), {
    logger: captureLogs().logger,
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    // Reloads back to back: the pacing between them (test/scheduler/reload-pacing.test.ts) is not what is tested,
    // and waited out 6 s after each of these heavy ones.
    elapsed: () => 0,
    // Each reload parses (its passwords registered, as a rotated password file's would be) and is then refused, as
    // a web config that does not load refuses it.
    loadConfig: () => {
      round++;
      // Each value is registered with its hex form too: 45,000 values are 90,000 registered, under the cap for one load.
      for (let i = 0; i < 45_000; i++) registerSecret(`refused-load-${round}-secret-${i}`);
      return Promise.resolve(configWith(`Rotated-${round}-Pw!`));
    },
    prepareReload: () => {
      throw new ConfigError('web.yml', [{ path: 'tls_server_config.cert_file', message: 'cannot read the file it names: no such file (ENOENT)' }]);
    },
  });
  try {
    for (let reload = 0; reload < 4; reload++) expect(await app.reload()).toMatchObject({ ok: false });
    expect(redactSecrets(`bad password ${RUNNING} (${basicEncoding('monitor', RUNNING)})`)).toBe('bad password [REDACTED] (bW9uaXRv[REDACTED])');
    // 360,000 refused values, the running ones kept: bounded by the cap, not by the number of refused reloads.
    expect(registeredSecretCount()).toBeLessThanOrEqual(MAX_SECRETS + 100);
  } finally {
    await app.stop();
  }
});

it('a client kept across a reload keeps its Basic token redacted, however much later reloads register (found by review)', async () => {
  const kept = 'Kept-Client-Pw-77';
  let refuse = false;
  const app = createApp(configWith(kept), {
    logger: captureLogs().logger,
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    // Reloads back to back: the pacing between them (test/scheduler/reload-pacing.test.ts) is not what is tested,
    // and waited out 6 s after each of these heavy ones.
    elapsed: () => 0,
    loadConfig: () => {
      // The refused reload reads more than the cap of new values, as rotated password files would give it.
      if (refuse) for (let i = 0; i < MAX_SECRETS + 10; i++) registerSecret(`later-load-secret-${i}`);
      return Promise.resolve(configWith(kept));
    },
    prepareReload: () => {
      if (refuse) throw new ConfigError('web.yml', [{ path: 'tls_server_config.cert_file', message: 'cannot read the file it names: no such file (ENOENT)' }]);
      return () => undefined;
    },
  });
  try {
    // The same config again: the client is kept, and its Basic forms were registered only when it was built.
    expect(await app.reload()).toEqual({ ok: true });
    refuse = true;
    expect(await app.reload()).toMatchObject({ ok: false });
    expect(redactSecrets(`echoed ${basicEncoding('monitor', kept)}`)).toBe('echoed bW9uaXRv[REDACTED]');
  } finally {
    await app.stop();
  }
});
