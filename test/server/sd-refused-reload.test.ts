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

it("/sd's target labels equal the series' labels after a refused reload", async () => {
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
    const series = (): string | undefined => /routeros_\w+\{router="b",role="([^"]*)"/.exec(app.exposition.routerText('text'))?.[1];
    const sd = (): string | undefined => sdGroupsOf(app.config().routers, app.config().shard).find((g) => g.targets[0] === 'b')?.labels['role'];
    expect([series(), sd()]).toEqual(['corp-backbone', 'corp-backbone']);
    expect(await app.reload()).toMatchObject({ ok: false });
    expect(sd()).toMatch(/^corp-\[REDACTED:[0-9a-f]+\]$/);
    expect(series()).toBe(sd());
    expect(app.exposition.routerText('text')).not.toContain('backbone');
  } finally {
    await app.stop();
  }
});
