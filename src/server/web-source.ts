/**
 * The live web config: read at start, re-read when the file or any file it names changes (checked at most
 * once per `recheckMs`, on new connections and requests), so certificates and users rotate without a restart.
 * A change that does not validate is logged once and the previous web config keeps serving.
 */
import { statSync } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError } from '../config/types.js';
import { loadWebConfig, type WebConfig } from './web-config.js';

/** Renewal is due when the certificate expires within this (operators get a warning line at load). */
const EXPIRY_WARNING_MS = 14 * 86_400_000;

export interface WebSourceOptions {
  logger: Logger;
  /** Minimum time between two checks of the files' modification stamps. Default 1000. */
  recheckMs?: number;
  /** Wall clock (certificate expiry). */
  now?: () => number;
  /** Monotonic clock in ms (the recheck throttle: a wall clock set back must not stop the re-reads). */
  monotonic?: () => number;
}

/** Modification stamp of a set of files: any write, replacement or symlink swap (Kubernetes secrets) changes it. */
function stampOf(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const stat = statSync(file);
        return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
      } catch {
        return 'missing';
      }
    })
    .join('|');
}

/** The ConfigError of the exporter config for problems inside its web config file. */
function asConfigProblem(path: string, error: unknown): ConfigError {
  const inner = error instanceof ConfigError ? error.problems : [{ path: '', message: String(error) }];
  return new ConfigError(
    path,
    // The file is the error's source, which every report of it names first: not in the message again (the line read
    // `web.yml: web_config_file: web.yml: …`, found by review).
    inner.map((problem) => ({ path: 'web_config_file', message: `${problem.path === '' ? '' : `${problem.path}: `}${problem.message}` })),
  );
}

export class WebConfigSource {
  /** Whether the server was started with TLS; switching needs a restart (a listener cannot change protocol). */
  readonly https: boolean;
  readonly #logger: Logger;
  readonly #recheckMs: number;
  readonly #now: () => number;
  readonly #monotonic: () => number;
  readonly #listeners: ((config: WebConfig | undefined) => void)[] = [];
  #config: WebConfig | undefined;
  #stamp = '';
  /** The monotonic clock's time of the last look at the files. */
  #checkedAt = 0;
  #failedStamp = '';

  /** Throws ConfigError (path `web_config_file`) when the file is invalid. */
  constructor(path: string | undefined, options: WebSourceOptions) {
    this.#logger = options.logger;
    this.#recheckMs = options.recheckMs ?? 1000;
    this.#now = options.now ?? Date.now;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    const config = path === undefined ? undefined : WebConfigSource.#load(path);
    this.https = config?.tls !== undefined;
    this.#install(config);
  }

  static #load(path: string): WebConfig {
    try {
      return loadWebConfig(path);
    } catch (error) {
      throw asConfigProblem(path, error);
    }
  }

  /** The web config in force, after re-reading it if its files changed (throttled). */
  current(): WebConfig | undefined {
    const config = this.#config;
    if (config === undefined || this.#monotonic() - this.#checkedAt < this.#recheckMs) return config;
    this.#checkedAt = this.#monotonic();
    const stamp = stampOf(config.files);
    if (stamp === this.#stamp || stamp === this.#failedStamp) return config;
    try {
      const next = WebConfigSource.#load(config.path);
      this.#checkFits(next);
      // Not from a file change alone: a file caught half-written (its users not yet there) validates, and it
      // turned authentication off until the next write (found by review). A reload, asked for, may.
      if (config.users.size > 0 && next.users.size === 0) {
        throw new ConfigError(config.path, [
          { path: 'basic_auth_users', message: 'the file now has no users, which would turn authentication off: a file change alone does not do that; reload (SIGHUP or POST /-/reload) to apply it' },
        ]);
      }
      // The stamp taken before the read: a write racing the read shows up as a change at the next check.
      this.#install(next, stamp);
      this.#logger.info({ web_config_file: config.path }, 'web config re-read after a file change');
      this.#failedStamp = '';
    } catch (error) {
      // Logged once per change of the files, not once per request.
      this.#failedStamp = stamp;
      this.#logger.error(
        { web_config_file: config.path, problems: (error as ConfigError).problems },
        'web config changed but is invalid; the previous one stays in force',
      );
    }
    return this.#config;
  }

  /** Called with the new web config each time one is installed. */
  onChange(listener: (config: WebConfig | undefined) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * For a config reload: validates the (possibly new, possibly absent) web config file and returns the
   * function that installs it once the reload goes through. Throws ConfigError to refuse the reload.
   */
  prepare(path: string | undefined, configSource = '<none>'): () => void {
    const config = path === undefined ? undefined : WebConfigSource.#load(path);
    this.#checkFits(config, configSource);
    const before = this.#config;
    if (before === undefined || before.users.size === 0 || (config?.users.size ?? 0) > 0) return () => this.#install(config);
    // A reload may turn Basic authentication off, but not by a file that says nothing of users: that is a file caught
    // as it was being written (cut before anything, or right after `basic_auth_users:`), which turned authentication
    // off silently when a reload came then, a sidecar's after any file change or one for another reason (found by
    // reviews). An explicit `basic_auth_users: {}` turns it off, with a warn line.
    if (config?.usersUnsaid === true) {
      throw new ConfigError(config.path, [
        {
          path: 'web_config_file',
          message: 'the file now says nothing of users (it is empty, or its basic_auth_users has no value), which would turn authentication off: write it whole and reload again (to serve without users, write basic_auth_users: {} or drop web_config_file)',
        },
      ]);
    }
    return () => {
      this.#install(config);
      this.#logger.warn({ web_config_file: config?.path ?? null }, 'this reload turned Basic authentication off: the web config has no basic_auth_users now');
    };
  }

  /** Throws when the running server cannot take this web config without a restart. */
  #checkFits(config: WebConfig | undefined, configSource = '<none>'): void {
    // Without a web config now, the file at fault is the exporter config that dropped it.
    const refuse = (message: string): never => {
      throw new ConfigError(config?.path ?? configSource, [{ path: 'web_config_file', message }]);
    };
    if ((config?.tls !== undefined) !== this.https) {
      refuse(
        this.https
          ? 'the server runs HTTPS; turning tls_server_config off needs a restart'
          : 'the server runs plain HTTP; turning tls_server_config on needs a restart',
      );
    }
    const clientCerts = (candidate: WebConfig | undefined): boolean => candidate?.tls?.clientCa !== undefined;
    if (clientCerts(config) !== clientCerts(this.#config)) refuse('changing client_auth_type needs a restart');
  }

  #install(config: WebConfig | undefined, stamp?: string): void {
    const same = stamp !== undefined && config !== undefined && this.#config?.files.join('|') === config.files.join('|');
    this.#config = config;
    this.#stamp = config === undefined ? '' : same ? stamp : stampOf(config.files);
    this.#checkedAt = this.#monotonic();
    for (const warning of config?.warnings ?? []) this.#logger.warn({ web_config_file: config?.path }, warning);
    const notAfter = config?.tls?.notAfter;
    if (notAfter !== undefined && notAfter.getTime() - this.#now() < EXPIRY_WARNING_MS) {
      this.#logger.warn(
        { web_config_file: config?.path, not_after: notAfter.toISOString() },
        notAfter.getTime() < this.#now()
          ? 'the server certificate (cert_file) has expired: scrapers will refuse it; replace cert_file and key_file'
          : 'the server certificate (cert_file) expires within 14 days; replace cert_file and key_file (no restart needed)',
      );
    }
    for (const listener of this.#listeners) listener(config);
  }
}
