/**
 * What a valid config still deserves a word about: the daemon logs these at start and reload, and
 * `check-config` prints them, with the path, so a user learns of them before deploying.
 */
import { DEFAULT_PORT, type Scheme } from './net.js';
import { joinPath } from './problems.js';
import { runSchedules } from './runs.js';
import type { Config, ConfigProblem, ProfileConfig, RouterConfig } from './types.js';
import { MIN_SECRET_LENGTH } from '../util/redact.js';

/** The daemon's wording (src/app.ts logs the same sentences for each router). */
export const PLAIN_HTTP_WARNING = 'plain HTTP: the password crosses the network unencrypted; use https';
export const SKIP_VERIFY_WARNING = 'TLS certificate verification is OFF for this router (tls.insecure_skip_verify)';
export const SHORT_PASSWORD_WARNING = `the password is shorter than ${MIN_SECRET_LENGTH} characters: too short to tell from ordinary text, it is not redacted from logs, errors and labels (its Basic encoding is); use a longer one`;
export const NAME_PASSWORD_WARNING =
  'the password is also a name (the router\'s or the user\'s, or one RouterOS gives its own objects): it is redacted wherever that name shows in logs and labels, which tells it; use one that is no name';

export const NO_RUNS_WARNING =
  'no collector runs for this router (every one off, or ping and bandwidth_test on without a target): it is never collected, and /health and check say "not collected yet" for good';

/**
 * Names every router's data and logs hold: the router's and the user's, and what RouterOS calls its own objects by
 * default (its identity, its default configuration's comments, its interfaces). A password equal to one is
 * redacted from every place the name shows (`[REDACTED:…]-lan` for a bridge called `bridge-lan`), and the
 * redaction itself tells the password to whoever reads them (found by review). In any letter case, as logs and
 * messages redact a password: `Branch-2` as the password of router `branch-2` made its every log line name it
 * `[REDACTED]` without a warning (found by review).
 */
const ROUTEROS_NAMES =
  /^(?:admin|default|defconf|MikroTik|local|lan|wan|bridgeLocal|(?:bridge|ether|sfp|sfp-sfpplus|sfp28-|qsfp28-|qsfpplus|qsfp|combo|wlan|wifi|wireguard|wg|vlan|bond|lte|pppoe-out|l2tp-out|sstp-out|ovpn-out|pptp-out|gre-tunnel|eoip-tunnel|ipip-tunnel|veth)[\d-]*(?:-gateway)?)$/i;

/** The warning a password deserves, if any, given the names it may stand beside (a user, a router, a btest user). */
function passwordWarning(password: string, names: readonly (string | undefined)[], path: string): ConfigProblem[] {
  if (password === '') return [];
  if (password.length < MIN_SECRET_LENGTH) return [{ path, message: SHORT_PASSWORD_WARNING }];
  const folded = password.toLowerCase();
  if (names.some((name) => name?.toLowerCase() === folded) || ROUTEROS_NAMES.test(password)) return [{ path, message: NAME_PASSWORD_WARNING }];
  return [];
}

/**
 * The router's password, and its bandwidth tests' btest passwords, which are secrets too (redacted the same way,
 * and so the same warnings: the docs promised the short one and the loader never said it; found by review).
 */
function passwordWarnings(router: RouterConfig, path: string): ConfigProblem[] {
  const warnings = passwordWarning(router.password.reveal(), [router.username, router.name], path);
  for (const [index, test] of router.bandwidthTest.entries()) {
    const password = test.password?.reveal();
    if (password !== undefined) warnings.push(...passwordWarning(password, [test.user, router.username, router.name], joinPath(joinPath(path, 'bandwidth_test'), index)));
  }
  return warnings;
}

export function routerWarnings(router: RouterConfig, path: string): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  if (router.url.startsWith('http:')) warnings.push({ path: joinPath(path, 'url'), message: PLAIN_HTTP_WARNING });
  // Over plain HTTP there is no certificate to skip: the first warning says it all.
  if (router.tls.insecureSkipVerify && router.url.startsWith('https:')) {
    warnings.push({ path, message: SKIP_VERIFY_WARNING });
  }
  warnings.push(...passwordWarnings(router, path));
  if (runSchedules(router).length === 0) warnings.push({ path: joinPath(path, 'collectors'), message: NO_RUNS_WARNING });
  return warnings;
}

/** The warning for a profile without `ports`, naming its scheme's default port (443 for https, 80 for http). */
export function anyPortWarning(scheme: Scheme): string {
  return `no ports: a probe may name any port of an allowed host, so the profile's credentials go to whatever answers there and its answer tells open ports from closed ones; list the routers' REST port (ports: [${String(DEFAULT_PORT[scheme])}])`;
}

/**
 * A profile's warnings: those of the routers its targets become (`scheme` stands where a router's `url` would), and
 * an allow list without `ports` (the docs told of the port scan it allows; the loader said nothing; found by review).
 */
export function profileWarnings(profile: ProfileConfig, path: string): ConfigProblem[] {
  const router: RouterConfig = { ...profile.settings, name: profile.name, url: `${profile.scheme}://target` };
  const warnings = routerWarnings(router, path).map((warning) => (warning.path === joinPath(path, 'url') ? { ...warning, path: joinPath(path, 'scheme') } : warning));
  if (profile.ports === undefined) warnings.push({ path: joinPath(path, 'ports'), message: anyPortWarning(profile.scheme) });
  return warnings;
}

/** Every warning of a resolved config; `routers[i]` is the i-th router of the file (a valid config keeps them all). */
export function configWarnings(config: Config): ConfigProblem[] {
  return [
    ...config.routers.flatMap((router, i) => routerWarnings(router, joinPath('routers', i))),
    ...(config.profiles ?? []).flatMap((profile) => profileWarnings(profile, joinPath('profiles', profile.name))),
  ];
}
