/**
 * `profiles:`: routers from inventory (docs/configuration.md, "profiles"). Each profile is a router without a name
 * or URL: the same settings keys, merged over `defaults` the same way, with the same password sources and checks,
 * plus what makes probing a target Prometheus names safe: the `targets:` allow list, a cap and an expiry.
 */
import { readDuration, readEnum, readInteger, readList, readMap, REPORTED, type RawMap } from './fields.js';
import { readAllowList } from './allow-list.js';
import { mergeLayers, type SettingsLayer } from './layer.js';
import { joinPath } from './problems.js';
import { resolveRouter, type RouterContext } from './router.js';
import { readSettings, SETTINGS_KEYS } from './settings.js';
import type { ProfileConfig } from './types.js';
import { quoteValue } from './value-error.js';

export const PROFILE_KEYS = ['targets', 'ports', 'max_targets', 'forget_after', 'scheme', ...SETTINGS_KEYS] as const;
/** Profile names are `profile=` values and metric label values: plain, like router names. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const DEFAULT_MAX_TARGETS = 1_000;
export const MAX_MAX_TARGETS = 100_000;
/** Shorter and a target probed every scrape could still be forgotten between two scrapes. */
export const MIN_FORGET_AFTER_SECONDS = 60;
const SCHEMES = ['https', 'http'] as const;

function readProfile(name: string, raw: unknown, defaults: SettingsLayer, ctx: RouterContext): ProfileConfig | undefined {
  const { problems } = ctx;
  const path = joinPath('profiles', name);
  const before = problems.count;
  const map: RawMap | undefined = readMap(raw, path, problems, PROFILE_KEYS, (key) =>
    key === 'name' || key === 'url' ? `${key} comes from the probed target; a profile cannot set it` : undefined,
  );
  if (map === undefined) return undefined;
  if (!SAFE_NAME.test(name)) {
    problems.add(path, `${quoteValue(name)} is not a safe profile name: use letters, digits, ".", "_" and "-" (at most 63)`);
  }
  let targets: ProfileConfig['targets'] | undefined;
  if (Object.hasOwn(map, 'targets')) targets = readAllowList(map.targets, joinPath(path, 'targets'), problems);
  else problems.add(joinPath(path, 'targets'), 'is required: a profile names the networks and host names it may reach');
  const maxTargets = Object.hasOwn(map, 'max_targets')
    ? readInteger(map.max_targets, joinPath(path, 'max_targets'), problems, { min: 1, max: MAX_MAX_TARGETS })
    : DEFAULT_MAX_TARGETS;
  const forgetAfter = Object.hasOwn(map, 'forget_after')
    ? readDuration(map.forget_after, joinPath(path, 'forget_after'), problems, { atLeast: MIN_FORGET_AFTER_SECONDS })
    : undefined;
  const scheme = Object.hasOwn(map, 'scheme') ? readEnum(map.scheme, joinPath(path, 'scheme'), problems, SCHEMES) : 'https';
  const ports = Object.hasOwn(map, 'ports') ? readPorts(map.ports, joinPath(path, 'ports'), problems) : undefined;
  const merged = mergeLayers(defaults, readSettings(map, path, problems));
  const router = resolveRouter({ name: '', url: '', path }, merged, ctx);
  if (router === undefined || targets === undefined || maxTargets === undefined || scheme === undefined) return undefined;
  if (problems.count > before) return undefined;
  const { name: _name, url: _url, ...settings } = router;
  const profile: ProfileConfig = { name, scheme, settings, targets, maxTargets };
  if (forgetAfter !== undefined) profile.forgetAfterSeconds = forgetAfter;
  if (ports !== undefined) profile.ports = ports;
  return profile;
}

/** `ports:` a non-empty list of port numbers (1–65535), each once. */
function readPorts(value: unknown, path: string, problems: RouterContext['problems']): number[] | undefined {
  const list = readList(value, path, problems);
  if (list === undefined) return undefined;
  if (list.length === 0) {
    problems.add(path, 'must list at least one port (leave ports out to allow any)');
    return undefined;
  }
  const ports: number[] = [];
  list.forEach((item, index) => {
    const port = readInteger(item, joinPath(path, index), problems, { min: 1, max: 65_535 });
    if (port === undefined) return;
    if (ports.includes(port)) problems.add(joinPath(path, index), `lists port ${port} twice`);
    else ports.push(port);
  });
  return ports.length === list.length ? ports : undefined;
}

/** The `profiles:` mapping, profile by profile in file order; every problem is reported at its path. */
export function readProfiles(value: unknown, defaults: SettingsLayer, ctx: RouterContext): ProfileConfig[] {
  if (value === REPORTED || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) {
    ctx.problems.add('profiles', 'must be a mapping of profile names to settings (like branches: {targets: [10.20.0.0/16], …})');
    return [];
  }
  const map = value as RawMap;
  const profiles: ProfileConfig[] = [];
  for (const [name, raw] of Object.entries(map)) {
    const profile = readProfile(name, raw, defaults, ctx);
    if (profile !== undefined) profiles.push(profile);
  }
  return profiles;
}
