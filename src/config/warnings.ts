/**
 * What a valid config still deserves a word about: the daemon logs these at start and reload, and
 * `check-config` prints them, with the path, so a user learns of them before deploying.
 */
import { joinPath } from './problems.js';
import type { Config, ConfigProblem, ProfileConfig, RouterConfig } from './types.js';

/** The daemon's wording (src/app.ts logs the same sentences for each router). */
export const PLAIN_HTTP_WARNING = 'plain HTTP: the password crosses the network unencrypted; use https';
export const SKIP_VERIFY_WARNING = 'TLS certificate verification is OFF for this router (tls.insecure_skip_verify)';

export function routerWarnings(router: RouterConfig, path: string): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  if (router.url.startsWith('http:')) warnings.push({ path: joinPath(path, 'url'), message: PLAIN_HTTP_WARNING });
  // Over plain HTTP there is no certificate to skip: the first warning says it all.
  if (router.tls.insecureSkipVerify && router.url.startsWith('https:')) {
    warnings.push({ path, message: SKIP_VERIFY_WARNING });
  }
  return warnings;
}

/** A profile's warnings: those of the routers its targets become (`scheme` stands where a router's `url` would). */
export function profileWarnings(profile: ProfileConfig, path: string): ConfigProblem[] {
  const router: RouterConfig = { ...profile.settings, name: profile.name, url: `${profile.scheme}://target` };
  return routerWarnings(router, path).map((warning) => (warning.path === joinPath(path, 'url') ? { ...warning, path: joinPath(path, 'scheme') } : warning));
}

/** Every warning of a resolved config; `routers[i]` is the i-th router of the file (a valid config keeps them all). */
export function configWarnings(config: Config): ConfigProblem[] {
  return [
    ...config.routers.flatMap((router, i) => routerWarnings(router, joinPath('routers', i))),
    ...(config.profiles ?? []).flatMap((profile) => profileWarnings(profile, joinPath('profiles', profile.name))),
  ];
}
