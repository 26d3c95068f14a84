/**
 * A reload refused after its file was read leaves the file's passwords known to the redaction (they may be the
 * routers' new ones). /sd, which labels its targets at request time, redacted a label value that became one at once,
 * while every series of that router kept it in clear under the old text until the next applied load (found by
 * review). The refused reload now plans the running config again, and both say the same.
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
function config(passwordOfA: string, word: string): Config {
  return testConfig({
    defaults: { username: 'u', collectors, timeout: '2s' },
    routers: [
      { name: 'a', url: 'https://192.0.2.1', password: passwordOfA },
      { name: 'b', url: 'https://192.0.2.2', password: 'b-password-unchanged', labels: { role: `corp-${word}` } },
    ],
  });
}

/**
 * The app, a reload of it that reads a file making router a's password `word` (part of router b's role label) and is
 * then refused, and what b's role label reads in its series and in /sd. Each test its own word: the registry is the
 * process's.
 */
function refusedReload(word: string) {
  const app = createApp(config('a-password-old', word), {
    logger: captureLogs().logger,
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    loadConfig: () => Promise.resolve(config(word, word)),
    prepareReload: () => {
      throw new ConfigError('web.yml', [{ path: 'tls_server_config.cert_file', message: 'cannot read the file it names: no such file (ENOENT)' }]);
    },
  });
  const series = (): string | undefined => /routeros_\w+\{router="b",role="([^"]*)"/.exec(app.exposition.routerText('text'))?.[1];
  const sd = (): string | undefined => sdGroupsOf(app.config().routers, app.config().shard).find((g) => g.targets[0] === 'b')?.labels['role'];
  return { app, series, sd };
}

it("/sd's target labels equal the series' labels after a refused reload", async () => {
  const { app, series, sd } = refusedReload('backbone');
  try {
    expect([series(), sd()]).toEqual(['corp-backbone', 'corp-backbone']);
    expect(await app.reload()).toMatchObject({ ok: false });
    expect(sd()).toMatch(/^corp-\[REDACTED:[0-9a-f]+\]$/);
    expect(series()).toBe(sd());
    expect(app.exposition.routerText('text')).not.toContain('backbone');
  } finally {
    await app.stop();
  }
});

// Last in this file: it fills the process's redaction registry.
it("/sd's target labels equal the series' labels after a refused reload, with the redaction registry at its cap", async () => {
  // At its cap (a fleet of non-ASCII passwords, or passwords rotated on reloads for months) each new value evicts an
  // old one: the registry's size said nothing changed, and the running config was not planned again (found by
  // review). Values an earlier load registered and no load uses any more (rotated passwords): evictable.
  for (let i = 0; registeredSecretCount() < MAX_SECRETS; i++) registerSecret(`rotated-${i}-Zq`);
  beginSecretGeneration()();
  const { app, series, sd } = refusedReload('uplinkward');
  try {
    expect(registeredSecretCount()).toBe(MAX_SECRETS);
    expect([series(), sd()]).toEqual(['corp-uplinkward', 'corp-uplinkward']);
    expect(await app.reload()).toMatchObject({ ok: false });
    expect(sd()).toMatch(/^corp-\[REDACTED:[0-9a-f]+\]$/);
    expect(series()).toBe(sd());
  } finally {
    await app.stop();
  }
}, 60_000);
