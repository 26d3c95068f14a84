/** Turns one merged settings layer into the RouterConfig the daemon uses: defaults, files, secrets, cross-checks. */
import { Secret } from '../util/secret.js';
import { readPemCertificates } from '../util/pem.js';
import {
  DEFAULT_COLLECTORS,
  DEFAULT_HANDSHAKE_STALE_AFTER_SECONDS,
  DEFAULT_IDLE_CONNECTION,
  DEFAULT_PING_LOSS_CRITICAL,
  DEFAULT_SCHEDULES,
  DEFAULT_TIMEOUT_SECONDS,
} from './defaults.js';
import type { ReadResult } from './files.js';
import { secretProblem } from './fields.js';
import { envValue } from './interpolate.js';
import type { BandwidthItem, PasswordSource, PingItem, SettingsLayer } from './layer.js';
import type { Slot } from './slot.js';
import { joinPath, type Problems } from './problems.js';
import { checkSchedules, type ScheduleUse } from './schedule-check.js';
import { resolveInterfaceFilter } from './interfaces.js';
import { resolveLabels } from './labels.js';
import { COLLECTOR_DESCRIPTORS } from '../collectors/descriptors.js';
import {
  COLLECTOR_NAMES,
  type BandwidthTestConfig,
  type CollectorName,
  type HealthConfig,
  type PingTargetConfig,
  type RouterConfig,
  type TlsConfig,
} from './types.js';

export interface RouterContext {
  problems: Problems;
  env: NodeJS.ProcessEnv;
  readText: (file: string) => ReadResult;
  /** Each CA text's check, made once per load: routers sharing the defaults' bundle share its check. */
  caChecks?: Map<string, RouterCa>;
}

/** A routers' CA file as it is installed (its certificates, written out again), or why it cannot be. */
type RouterCa = { ca: string } | { problem: string };

/** More is no CA bundle for routers (the system's holds ~150), and reading it grows with them. */
export const MAX_ROUTER_CA_CERTIFICATES = 1000;

/**
 * The CA text checked as the exporter trusts it: every block a certificate, none cut short. OpenSSL takes what it can
 * read of a file and says nothing of the rest, so a file half written by a rewrite that is not atomic was installed by
 * a reload that reported success, and every router sharing it went down with "put its CA in tls.ca_file" (found by
 * review). What is installed is the certificates this check read, written out again, so the two cannot disagree.
 */
function checkedCa(text: string, ctx: RouterContext): RouterCa {
  const checks = (ctx.caChecks ??= new Map());
  let check = checks.get(text);
  if (check === undefined) {
    const read = readPemCertificates(text, MAX_ROUTER_CA_CERTIFICATES);
    check = 'problem' in read ? { problem: read.problem } : { ca: read.certificates.map((cert) => cert.toString()).join('') };
    checks.set(text, check);
  }
  return check;
}

function value<T>(slot: Slot<T>, fallback: T): T {
  return slot === undefined || slot === null ? fallback : slot.value;
}

/** A password read from a file or a variable, without the line break its writer ended it with. */
const withoutLineEnd = (text: string): string => text.replace(/[\r\n]+$/, '');

function resolvePassword(source: PasswordSource, path: string, ctx: RouterContext): Secret | undefined {
  const checked = (text: string, what: string): Secret | undefined => {
    const problem = secretProblem(text);
    if (problem === undefined) return new Secret(text);
    ctx.problems.add(path, `${what} ${problem}`);
    return undefined;
  };
  // An empty file is one being rewritten (or a secret not filled in): a reload then logged every router in with no
  // password and into the back-off of failed logins (found by review). An empty password is written where it shows:
  // `password: ""` (or a variable set to empty).
  const nonEmpty = (text: string, what: string): Secret | undefined => {
    if (text !== '') return checked(text, what);
    ctx.problems.add(path, `${what} is empty: no password (for a router whose password is empty, write password: "")`);
    return undefined;
  };
  switch (source.kind) {
    case 'password':
      return checked(source.value, 'the password');
    case 'password_env': {
      const text = envValue(ctx.env, source.name);
      // A value set from a file or `echo` ends in a line break that is not part of the password, as a file's does.
      // Empty is taken: a variable does not change under a running process, so it was set so (RouterOS's default
      // admin has no password).
      if (text !== undefined) return checked(withoutLineEnd(text), 'the value of the environment variable it names');
      // The name is not quoted: it may be a password pasted where the variable's name belongs.
      ctx.problems.add(path, 'the environment variable it names is not set');
      return undefined;
    }
    case 'password_file': {
      const read = ctx.readText(source.file);
      // A file written by `echo` or a secrets manager ends in a newline that is not part of the password, and one
      // saved by Windows Notepad starts with a byte-order mark that is not part of it either.
      if ('text' in read) return nonEmpty(withoutLineEnd(read.text.replace(/^\uFEFF/, '')), 'the text of the file it names');
      // The path is not quoted either, as password_env's name is not: it may be a password pasted where the path
      // belongs, or come from a `${VAR:-default}` whose default is one.
      ctx.problems.add(path, `cannot read the file it names: ${read.reason}`);
      return undefined;
    }
  }
}

function resolveTls(layer: SettingsLayer['tls'], ctx: RouterContext): TlsConfig {
  const tls: TlsConfig = { insecureSkipVerify: value(layer.insecureSkipVerify, false) };
  if (layer.caFile) {
    const read = ctx.readText(layer.caFile.value);
    tls.caFile = read.path;
    if (!('text' in read)) ctx.problems.add(layer.caFile.path, read.error);
    else {
      const check = checkedCa(read.text, ctx);
      if ('problem' in check) ctx.problems.add(layer.caFile.path, `${JSON.stringify(read.path)} ${check.problem}`);
      else tls.ca = check.ca;
    }
  }
  if (layer.serverName) tls.serverName = layer.serverName.value;
  return tls;
}

function resolveHealth(layer: SettingsLayer['health']): HealthConfig {
  const health: HealthConfig = {
    handshakeStaleAfterSeconds: value(layer.handshakeStaleAfter, DEFAULT_HANDSHAKE_STALE_AFTER_SECONDS),
    pingLossCritical: value(layer.pingLossCritical, DEFAULT_PING_LOSS_CRITICAL),
    // A copy: routers sharing the defaults' list must not share one mutable array.
    excludePeers: [...value(layer.excludePeers, [])],
  };
  if (layer.excludePeerPattern) health.excludePeerPattern = layer.excludePeerPattern.value;
  if (layer.expect) health.expect = { ...layer.expect.value };
  // Absent means auto: only what differs from it is written, so the defaults' config reads as before.
  if (layer.probeTunnels && layer.probeTunnels.value !== 'auto') health.probeTunnels = layer.probeTunnels.value;
  if (layer.probe) health.probe = { ...layer.probe.value };
  if (layer.probeCount && layer.probeCount.value !== 1) health.probeCount = layer.probeCount.value;
  return health;
}

function toPing(item: PingItem, schedule: string): PingTargetConfig {
  const { path: _path, schedule: _own, ...rest } = item;
  return { ...rest, schedule };
}

function toBandwidth(item: BandwidthItem, schedule: string): BandwidthTestConfig {
  const { path: _path, schedule: _own, password, ...rest } = item;
  return password === undefined ? { ...rest, schedule } : { ...rest, schedule, password: new Secret(password) };
}

/**
 * Schedules whose timing matters: enabled collectors, and ping/bandwidth tests only when they have
 * targets. A schedule that was invalid (already reported) is left out rather than checked as its default.
 */
function scheduleUses(merged: SettingsLayer, collectors: Record<CollectorName, boolean>): ScheduleUse[] {
  const uses: ScheduleUse[] = [];
  const collectorUse = (name: CollectorName): ScheduleUse | undefined => {
    const slot = merged.schedules[name];
    if (slot === null) return undefined;
    return { label: `schedules.${name}`, expression: value(slot, DEFAULT_SCHEDULES[name]), setAt: slot?.path };
  };
  // Every collector with one job per router on its own schedule, from the catalog: a new one is checked too.
  for (const { name } of COLLECTOR_DESCRIPTORS.filter((collector) => collector.jobsPer === 'router')) {
    const use = collectors[name] ? collectorUse(name) : undefined;
    if (use !== undefined) uses.push(use);
  }
  const runs = [
    ...(collectors.ping ? value(merged.ping, []) : []).map((item) => ({
      item,
      shared: 'ping' as const,
      run: { seconds: item.count * item.intervalSeconds, what: 'count × interval', path: item.path },
    })),
    ...(collectors.bandwidth_test ? value(merged.bandwidthTest, []) : []).map((item) => ({
      item,
      shared: 'bandwidth_test' as const,
      run: { seconds: item.durationSeconds, what: 'duration', path: item.path },
    })),
  ];
  for (const { item, shared, run } of runs) {
    const own = item.schedule;
    const use = own ? { label: own.path, expression: own.value, setAt: own.path } : collectorUse(shared);
    if (use !== undefined) uses.push({ ...use, run });
  }
  return uses;
}

export function resolveRouter(
  identity: { name: string; url: string; path: string },
  merged: SettingsLayer,
  ctx: RouterContext,
): RouterConfig | undefined {
  const { problems } = ctx;
  const before = problems.count;
  if (merged.username === undefined) {
    problems.add(joinPath(identity.path, 'username'), 'is required (set it here or in defaults)');
  }
  let password: Secret | undefined;
  if (merged.password === undefined) {
    problems.add(identity.path, 'needs a password source: password, password_file or password_env (here or in defaults)');
  } else if (merged.password !== null) {
    password = resolvePassword(merged.password.value, merged.password.path, ctx);
  }
  const schedules = { ...DEFAULT_SCHEDULES };
  const collectors = { ...DEFAULT_COLLECTORS };
  for (const name of COLLECTOR_NAMES) {
    schedules[name] = value(merged.schedules[name], schedules[name]);
    collectors[name] = value(merged.collectors[name], collectors[name]);
  }
  const timeoutSeconds = value(merged.timeout, DEFAULT_TIMEOUT_SECONDS);
  const tls = resolveTls(merged.tls, ctx);
  const health = resolveHealth(merged.health);
  const ping = value(merged.ping, []).map((item) => toPing(item, item.schedule?.value ?? schedules.ping));
  const bandwidthTest = value(merged.bandwidthTest, []).map((item) =>
    toBandwidth(item, item.schedule?.value ?? schedules.bandwidth_test),
  );
  checkSchedules(
    scheduleUses(merged, collectors),
    { seconds: timeoutSeconds, at: merged.timeout ?? undefined },
    joinPath(identity.path, 'timeout'),
    problems,
  );
  const labels = resolveLabels(merged.labels);
  if (problems.count > before || merged.username === undefined || merged.username === null || password === undefined) return undefined;
  if (labels === undefined) return undefined;
  return {
    name: identity.name,
    url: identity.url,
    username: merged.username.value,
    password,
    timeoutSeconds,
    idleConnection: value(merged.idleConnection, DEFAULT_IDLE_CONNECTION),
    tls,
    schedules,
    collectors,
    health,
    ping,
    bandwidthTest,
    interfaces: resolveInterfaceFilter(merged.interfaces),
    labels,
  };
}
