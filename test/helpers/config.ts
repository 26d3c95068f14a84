/** Builds validated configs for tests through the real config resolver. */
import { resolveConfig } from '../../src/config/index.js';
import type { Config, RouterConfig } from '../../src/config/types.js';

export function testConfig(raw: Record<string, unknown>): Config {
  return resolveConfig(raw, { source: '<test>', baseDir: process.cwd(), env: {} });
}

export function testRouter(router: Record<string, unknown> = {}, defaults: Record<string, unknown> = {}): RouterConfig {
  const config = testConfig({
    defaults: { username: 'monitor', password: 'not-a-real-password', ...defaults },
    routers: [{ name: 'hq', url: 'https://192.0.2.1', ...router }],
  });
  const first = config.routers[0];
  if (first === undefined) throw new Error('no router');
  return first;
}
