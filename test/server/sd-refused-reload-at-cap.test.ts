/**
 * As sd-refused-reload.test.ts, with the redaction registry at its cap (a fleet of non-ASCII passwords, or
 * passwords rotated on reloads for months): each new value evicts an old one, so the registry's size said nothing
 * changed and the running config was not planned again (found by review). A count of values added says it.
 */
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { COLLECTOR_NAMES, ConfigError, type Config } from '../../src/config/types.js';
import { sdGroupsOf } from '../../src/server/sd-groups.js';
import { beginSecretGeneration, MAX_SECRETS, registeredSecretCount, registerSecret } from '../../src/util/redact.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));
function config(passwordOfA: string): Config {
  return testConfig({
    defaults: { username: 'u', collectors, timeout: '2s' },
    routers: [
      { name: 'a', url: 'https://192.0.2.1', password: passwordOfA },
      { name: 'b', url: 'https://192.0.2.2', password: 'b-password-unchanged', labels: { role: 'corp-backbone' } },
    ],
  });
}

it("/sd's target labels equal the series' labels after a refused reload, with the redaction registry at its cap", async () => {
  // Values an earlier load registered and no load uses any more (rotated passwords): evictable.
  for (let i = 0; registeredSecretCount() < MAX_SECRETS; i++) registerSecret(`rotated-${i}-Zq`);
  beginSecretGeneration()();
  const app = createApp(config('a-password-old'), {
    logger: captureLogs().logger,
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    loadConfig: () => Promise.resolve(config('backbone')),
    prepareReload: () => {
      throw new ConfigError('web.yml', [{ path: 'tls_server_config.cert_file', message: 'cannot read the file it names: no such file (ENOENT)' }]);
    },
  });
  try {
    expect(registeredSecretCount()).toBe(MAX_SECRETS);
    const series = (): string | undefined => /routeros_\w+\{router="b",role="([^"]*)"/.exec(app.exposition.routerText('text'))?.[1];
    const sd = (): string | undefined => sdGroupsOf(app.config().routers, app.config().shard).find((g) => g.targets[0] === 'b')?.labels['role'];
    expect([series(), sd()]).toEqual(['corp-backbone', 'corp-backbone']);
    expect(await app.reload()).toMatchObject({ ok: false });
    expect(sd()).toMatch(/^corp-\[REDACTED:[0-9a-f]+\]$/);
    expect(series()).toBe(sd());
  } finally {
    await app.stop();
  }
}, 60_000);
