/** Shared by the config tests: resolve an object the way a parsed YAML file would be. */
import { readFileSync } from 'node:fs';
import { ConfigError, resolveConfig, type Config, type ConfigProblem } from '../../src/config/index.js';

/** A real certificate (self-signed, valid for a century): a routers' CA file must hold readable ones. */
export const TEST_CA_PEM = readFileSync(new URL('testdata/ca.pem', import.meta.url), 'utf8');

export const BASE = {
  defaults: { username: 'monitor', password: 'default-Secret-1' },
  routers: [{ name: 'hq', url: 'https://192.0.2.1' }],
};

export interface Options {
  env?: NodeJS.ProcessEnv;
  files?: Record<string, string>;
}

export function resolve(raw: unknown, options: Options = {}): Config {
  const files = options.files ?? {};
  return resolveConfig(raw, {
    source: 'test.yml',
    baseDir: '/etc/routeros-exporter',
    env: options.env ?? {},
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return text;
    },
  });
}

/** The problems of a config that must fail; fails the test if it resolves. */
export function problemsOf(raw: unknown, options: Options = {}): ConfigProblem[] {
  try {
    resolve(raw, options);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

export function firstRouter(config: Config): Config['routers'][number] {
  const router = config.routers[0];
  if (router === undefined) throw new Error('no router');
  return router;
}
