/**
 * The web config: a subset of the Prometheus exporter-toolkit format (docs/security.md) that puts TLS and
 * HTTP Basic users with bcrypt hashes in front of every endpoint. Validated whole, every problem with its path;
 * unknown keys are errors, and keys of the full format this exporter does not implement say so.
 */
import { X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createSecureContext } from 'node:tls';
import { makeFileReader } from '../config/files.js';
import { joinPath, Problems } from '../config/problems.js';
import { suggest } from '../config/suggest.js';
import { ConfigError } from '../config/types.js';
import { parseYaml } from '../config/yaml.js';
import { checkClientCa } from './client-ca.js';

export type TlsVersion = 'TLSv1.2' | 'TLSv1.3';

export interface WebTls {
  cert: string;
  key: string;
  /** Client CA bundle; set exactly when client certificates are required. */
  clientCa?: string;
  minVersion: TlsVersion;
  maxVersion: TlsVersion;
  /** Resolved path of the key, for the permission check. */
  keyFile: string;
  /** When the server certificate stops being valid, for the operator's warning. */
  notAfter: Date;
}

export interface WebConfig {
  path: string;
  tls?: WebTls;
  /** Username → bcrypt hash; empty means no authentication (as in exporter-toolkit). */
  users: ReadonlyMap<string, string>;
  /** Extra response headers (http_server_config.headers). */
  headers: Readonly<Record<string, string>>;
  /** Every file read, the web config first: a change to any of them means a re-read. */
  files: readonly string[];
  /** Not errors, but worth a log line (a key file readable by everyone, users over plain HTTP). */
  warnings: string[];
  /**
   * The file says nothing of users: it is empty (blanks or comments), or its `basic_auth_users:` has no value at all.
   * Plain HTTP without users, or a file caught half written (cut after that key, or before anything).
   */
  usersUnsaid: boolean;
}

const KEYS = {
  '': ['tls_server_config', 'http_server_config', 'basic_auth_users'],
  tls_server_config: ['cert_file', 'key_file', 'client_auth_type', 'client_ca_file', 'min_version', 'max_version'],
  http_server_config: ['headers'],
} as const;

// The tables below are looked up by names from the file, so they are Maps: a plain object would answer
// `constructor`, `toString` or `__proto__` with what every object inherits.

/** Keys of the full exporter-toolkit format, with what to do instead. */
const NOT_SUPPORTED = new Map<string, string>([
  ['rate_limit', 'is not supported; put a reverse proxy in front if you need rate limiting'],
  ['tls_server_config.cert', 'inline certificates are not supported; use cert_file'],
  ['tls_server_config.key', 'inline keys are not supported; use key_file'],
  ['tls_server_config.client_ca', 'inline CAs are not supported; use client_ca_file'],
  ['tls_server_config.cipher_suites', "is not supported; Node.js's default suites are used"],
  ['tls_server_config.curve_preferences', "is not supported; Node.js's default curves are used"],
  ['tls_server_config.prefer_server_cipher_suites', 'is not supported'],
  ['tls_server_config.client_allowed_sans', 'is not supported'],
  ['http_server_config.http2', 'is not supported; the server speaks HTTP/1.1'],
]);

/** Versions by name; the offered ones map to Node's name, TLS 1.0 and 1.1 to undefined (named, refused). */
const VERSIONS = new Map<string, TlsVersion | undefined>([
  ['TLS12', 'TLSv1.2'],
  ['TLS13', 'TLSv1.3'],
  ['TLS10', undefined],
  ['TLS11', undefined],
]);
const HEADERS = new Map<string, (value: string) => boolean>([
  ['Content-Security-Policy', () => true],
  ['X-Frame-Options', (value) => /^(deny|sameorigin)$/i.test(value)],
  ['X-Content-Type-Options', (value) => /^nosniff$/i.test(value)],
  ['X-XSS-Protection', () => true],
  ['Strict-Transport-Security', () => true],
]);
/**
 * What a header value may hold: what Node lets it hold (RFC 9110's field-value: visible ASCII and obs-text,
 * Latin-1), without control characters (tab and DEL included). Anything else made setHeader throw on every
 * request: a Content-Security-Policy with typographic quotes passed the check and then every endpoint answered 500,
 * with an error line each (found by review).
 */
const HEADER_VALUE = /^[\x20-\x7e\x80-\xff]*$/;
/** bcrypt in modular crypt format: $2a$/$2b$/$2y$, a two-digit cost, 22 salt and 31 hash characters. */
const BCRYPT = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/** The bcrypt cost of a hash BCRYPT accepted (`$2b$12$…` → 12). */
export function bcryptCost(hash: string): number {
  return Number(hash.slice(4, 6));
}
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

type Tree = Record<string, unknown>;

function mapping(value: unknown, path: string, problems: Problems): Tree | undefined {
  if (value === null || value === undefined) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Tree;
  problems.add(path, 'must be a mapping');
  return undefined;
}

function checkKeys(tree: Tree, section: keyof typeof KEYS, problems: Problems): void {
  const known: readonly string[] = KEYS[section];
  for (const key of Object.keys(tree)) {
    if (known.includes(key)) continue;
    const path = joinPath(section, key);
    const guess = suggest(key, known);
    problems.add(path, NOT_SUPPORTED.get(path) ?? (guess === undefined ? 'unknown key' : `unknown key; did you mean ${guess}?`));
  }
}

function text(tree: Tree, key: string, section: string, problems: Problems): string | undefined {
  const value = tree[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  problems.add(joinPath(section, key), 'must be a non-empty string');
  return undefined;
}

/** Reads and validates a web config file; throws ConfigError listing every problem (paths inside the file). */
export function loadWebConfig(path: string): WebConfig {
  const problems = new Problems();
  // Regular files only: a FIFO or device would hang the start and every reload.
  const read = makeFileReader(dirname(path));
  const own = read(path);
  if ('error' in own) throw new ConfigError(path, [{ path: '', message: own.error }]);
  const parsed = parseYaml(own.text);
  if (parsed.problems.length > 0) throw new ConfigError(path, parsed.problems);
  const document = parsed.value;
  const usersUnsaid =
    document === null || document === undefined || (typeof document === 'object' && Object.hasOwn(document, 'basic_auth_users') && (document as Tree)['basic_auth_users'] === null);
  const config: WebConfig = { path, users: new Map(), headers: {}, files: [path], warnings: [], usersUnsaid };
  const top = mapping(parsed.value, '', problems);
  if (top !== undefined) {
    checkKeys(top, '', problems);
    const readFile = (file: string, at: string): { path: string; text: string } | undefined => {
      const result = read(file);
      if ('error' in result) {
        // A key_file's path is never quoted, as a password_file's is not: a key body pasted in its place, on one
        // line and without its PEM markers, would pass for a path (found by review).
        problems.add(at, at.endsWith('key_file') ? `cannot read the file it names: ${result.reason}` : result.error);
        return undefined;
      }
      (config.files as string[]).push(result.path);
      return result;
    };
    if (top['tls_server_config'] !== undefined) {
      const tls = readTls(mapping(top['tls_server_config'], 'tls_server_config', problems), problems, readFile, config.warnings);
      if (tls !== undefined) config.tls = tls;
    }
    config.users = readUsers(mapping(top['basic_auth_users'], 'basic_auth_users', problems), problems);
    config.headers = readHeaders(mapping(top['http_server_config'], 'http_server_config', problems), problems);
  }
  if (!problems.empty) throw new ConfigError(path, problems.list, problems.count);
  if (config.users.size > 0 && config.tls === undefined) {
    config.warnings.push('basic_auth_users without tls_server_config: passwords cross the network in clear text');
  }
  const costs = [...new Set([...config.users.values()].map(bcryptCost))].sort((a, b) => a - b);
  if (costs.length > 1) {
    // A wrong password costs a check at the name's own cost (unknown names at the highest): the time an answer
    // takes tells a client which names have a lower one, and so that they exist.
    config.warnings.push(
      `basic_auth_users: the hashes have different bcrypt costs (${costs.join(', ')}), so the time a wrong password takes tells which usernames exist; make every hash with one cost (htpasswd -nBC ${String(costs.at(-1))})`,
    );
  }
  if (config.tls !== undefined && (statSync(config.tls.keyFile).mode & 0o004) !== 0) {
    config.warnings.push(`key_file ${config.tls.keyFile} is readable by every user of this machine; make it readable by the exporter only`);
  }
  return config;
}

type ReadFile = (file: string, at: string) => { path: string; text: string } | undefined;

function readTls(tree: Tree | undefined, problems: Problems, readFile: ReadFile, warnings: string[]): WebTls | undefined {
  if (tree === undefined) return undefined;
  const section = 'tls_server_config';
  checkKeys(tree, section, problems);
  const certFile = text(tree, 'cert_file', section, problems);
  const keyFile = text(tree, 'key_file', section, problems);
  if (certFile === undefined) problems.add(`${section}.cert_file`, 'is required with tls_server_config');
  if (keyFile === undefined) problems.add(`${section}.key_file`, 'is required with tls_server_config');
  const cert = certFile === undefined ? undefined : readFile(certFile, `${section}.cert_file`);
  const key = keyFile === undefined ? undefined : readFile(keyFile, `${section}.key_file`);
  const version = (name: 'min_version' | 'max_version', fallback: TlsVersion): TlsVersion => {
    const value = text(tree, name, section, problems);
    if (value === undefined) return fallback;
    const mapped = VERSIONS.get(value);
    if (mapped === undefined) {
      problems.add(`${section}.${name}`, VERSIONS.has(value) ? 'TLS 1.0 and 1.1 are not offered; use TLS12 or TLS13' : 'must be TLS12 or TLS13');
    }
    return mapped ?? fallback;
  };
  const minVersion = version('min_version', 'TLSv1.2');
  const maxVersion = version('max_version', 'TLSv1.3');
  if (minVersion > maxVersion) problems.add(`${section}.min_version`, 'is above max_version');
  const clientAuth = text(tree, 'client_auth_type', section, problems) ?? 'NoClientCert';
  const caFile = text(tree, 'client_ca_file', section, problems);
  let clientCa: string | undefined;
  if (clientAuth === 'RequireAndVerifyClientCert') {
    if (caFile === undefined) problems.add(`${section}.client_ca_file`, 'is required with RequireAndVerifyClientCert');
    else {
      const file = readFile(caFile, `${section}.client_ca_file`)?.text;
      const checked = file === undefined ? undefined : checkClientCa(file);
      if (checked?.problem !== undefined) problems.add(`${section}.client_ca_file`, checked.problem);
      warnings.push(...(checked?.warnings ?? []));
      // The certificates the check read, not the file (client-ca.ts).
      clientCa = checked?.certificates;
    }
  } else if (clientAuth !== 'NoClientCert') {
    problems.add(
      `${section}.client_auth_type`,
      'must be NoClientCert or RequireAndVerifyClientCert (the other types let a client in without a certificate, or with one nobody verified)',
    );
  } else if (caFile !== undefined) {
    problems.add(`${section}.client_ca_file`, 'has no effect unless client_auth_type is RequireAndVerifyClientCert');
  }
  if (cert === undefined || key === undefined) return undefined;
  let notAfter: Date;
  try {
    notAfter = new Date(new X509Certificate(cert.text).validTo);
    // Fails when the key does not belong to the certificate or either is not PEM.
    createSecureContext({ cert: cert.text, key: key.text, ...(clientCa === undefined ? {} : { ca: clientCa }) });
  } catch (error) {
    problems.add(section, `cert_file and key_file do not make a usable certificate and key (${(error as Error).message})`);
    return undefined;
  }
  const tls: WebTls = { cert: cert.text, key: key.text, keyFile: key.path, minVersion, maxVersion, notAfter };
  if (clientCa !== undefined) tls.clientCa = clientCa;
  return tls;
}

function readUsers(tree: Tree | undefined, problems: Problems): Map<string, string> {
  const users = new Map<string, string>();
  for (const [name, hash] of Object.entries(tree ?? {})) {
    const path = joinPath('basic_auth_users', name);
    if (name === '' || name.includes(':') || CONTROL.test(name)) {
      problems.add('basic_auth_users', 'usernames must be non-empty, without ":" or control characters');
    } else if (typeof hash !== 'string' || !BCRYPT.test(hash)) {
      // Never echo the value: it may be a password written where its hash belongs.
      problems.add(path, "must be a bcrypt hash (e.g. from htpasswd -nBC 10 '' | tr -d ':\\n'), not a password");
    } else {
      users.set(name, hash);
    }
  }
  return users;
}

function readHeaders(tree: Tree | undefined, problems: Problems): Record<string, string> {
  if (tree === undefined) return {};
  checkKeys(tree, 'http_server_config', problems);
  const headers: Record<string, string> = {};
  const given = mapping(tree['headers'], 'http_server_config.headers', problems) ?? {};
  for (const [name, value] of Object.entries(given)) {
    const path = joinPath('http_server_config.headers', name);
    const valid = HEADERS.get(name);
    if (valid === undefined) problems.add(path, `unknown header; one of ${[...HEADERS.keys()].join(', ')}`);
    else if (typeof value !== 'string' || !HEADER_VALUE.test(value) || !valid(value)) {
      problems.add(path, 'has an invalid value (a header value is printable ASCII or Latin-1: a quote pasted as ‘ or ’ is neither)');
    }
    else if (value !== '') headers[name] = value;
  }
  return headers;
}

/** The server-side TLS options for a web config's tls section. */
export function tlsServerOptions(tls: WebTls): {
  cert: string;
  key: string;
  ca?: string;
  minVersion: TlsVersion;
  maxVersion: TlsVersion;
  requestCert: boolean;
  rejectUnauthorized: boolean;
} {
  return {
    cert: tls.cert,
    key: tls.key,
    minVersion: tls.minVersion,
    maxVersion: tls.maxVersion,
    ...(tls.clientCa === undefined ? { requestCert: false, rejectUnauthorized: false } : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true }),
  };
}
