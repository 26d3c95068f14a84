#!/usr/bin/env node
/**
 * routeros-emulator: the emulator alone, for trying Prometheus/Grafana set-ups, benchmarks and soaks.
 *   routeros-emulator [--port N] [--host H] [--routers N --interfaces N --peers N]
 *                     [--command-timeout 60s] [--tls-dir DIR | --cert F --key F [--ca F]] [--control]
 *                     [--keep-alive 30s] [--tls-resumption tickets|cache|off]
 * With only --port it serves the demo scenario, router i on port+i; with --routers the scale one.
 * It prints one `name url` line per router, then `ca FILE`: the CA a client must trust.
 * Exit codes: 0 after SIGTERM/SIGINT, 1 runtime failure, 2 usage error (one line and the usage, no trace).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEMO_ROUTERS } from './scenarios/demo.js';
import type { EmulatorOptions } from './types.js';
import { parseDurationMicros } from './util/duration.js';

const USAGE =
  'usage: routeros-emulator [--port N] [--host H] [--routers N --interfaces N --peers N]\n' +
  '                         [--command-timeout 60s] [--tls-dir DIR | --cert FILE --key FILE [--ca FILE]] [--control]\n' +
  '                         [--keep-alive 30s] [--tls-resumption tickets|cache|off]';

class UsageError extends Error {}

/**
 * Ranges of the numeric options: what the scale scenario can address (interfaces get 10.(100+j).0.0/16,
 * peers 250 per /24 of their interface's /16) and what one process sensibly listens on.
 */
export const LIMITS = {
  port: { min: 0, max: 65_535 },
  routers: { min: 1, max: 10_000 },
  interfaces: { min: 1, max: 150 },
  peers: { min: 0, max: 1_000_000 },
} as const;
const PEERS_PER_INTERFACE = 64_000;
const MAX_COMMAND_TIMEOUT_US = 3_600_000_000;
const MAX_KEEP_ALIVE_US = 3_600_000_000;
const RESUMPTIONS = ['tickets', 'cache', 'off'] as const;

function count(name: keyof typeof LIMITS, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const { min, max } = LIMITS[name];
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value.slice(0, 40))}`);
  return n;
}

interface Parsed {
  options: EmulatorOptions;
  tlsDir?: string;
  /** The CA to print when --cert/--key are given. */
  caFile?: string;
}

function readGiven(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${JSON.stringify(file)}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

function optionsFrom(argv: string[]): Parsed {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      routers: { type: 'string' },
      interfaces: { type: 'string' },
      peers: { type: 'string' },
      'command-timeout': { type: 'string' },
      'tls-dir': { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      ca: { type: 'string' },
      control: { type: 'boolean' },
      'keep-alive': { type: 'string' },
      'tls-resumption': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  const options: EmulatorOptions = { port: count('port', values.port, 0), control: values.control ?? false };
  if (values.host !== undefined) options.host = values.host;
  let routers = DEMO_ROUTERS.length;
  if (values.routers !== undefined || values.interfaces !== undefined || values.peers !== undefined) {
    options.scenario = 'scale';
    const scale = { routers: count('routers', values.routers, 1), interfaces: count('interfaces', values.interfaces, 1), peers: count('peers', values.peers, 10) };
    if (scale.peers > scale.interfaces * PEERS_PER_INTERFACE) {
      throw new UsageError(`--peers ${scale.peers} is more than ${PEERS_PER_INTERFACE} per interface (${scale.interfaces}): raise --interfaces`);
    }
    options.scale = scale;
    routers = scale.routers;
  }
  // Router i listens on port+i: all of them must fit below 65536.
  const port = options.port ?? 0;
  if (port !== 0 && port + routers - 1 > LIMITS.port.max) {
    throw new UsageError(`--port ${port} leaves no room for ${routers} routers on ports ${port}–${port + routers - 1}: the highest port is 65535`);
  }
  const timeout = values['command-timeout'];
  if (timeout !== undefined) {
    const us = parseDurationMicros(timeout);
    if (us === undefined || !(us > 0 && us <= MAX_COMMAND_TIMEOUT_US)) throw new UsageError('--command-timeout must be a duration above 0 and at most 1h, such as 60s');
    options.commandTimeoutMs = us / 1000;
  }
  const keepAlive = values['keep-alive'];
  if (keepAlive !== undefined) {
    const us = parseDurationMicros(keepAlive);
    if (us === undefined || !(us > 0 && us <= MAX_KEEP_ALIVE_US)) throw new UsageError('--keep-alive must be a duration above 0 and at most 1h, such as 30s');
    options.keepAliveSeconds = us / 1_000_000;
  }
  const resumption = values['tls-resumption'];
  if (resumption !== undefined) {
    const known = RESUMPTIONS.find((r) => r === resumption);
    if (known === undefined) throw new UsageError(`--tls-resumption must be ${RESUMPTIONS.join(', ')}, not ${JSON.stringify(resumption.slice(0, 40))}`);
    options.tlsSessionResumption = known;
  }
  if ((values.cert === undefined) !== (values.key === undefined)) throw new UsageError('--cert and --key go together');
  if (values['tls-dir'] !== undefined && values.cert !== undefined) throw new UsageError('--tls-dir and --cert/--key are alternatives');
  if (values.ca !== undefined && values.cert === undefined) throw new UsageError('--ca goes with --cert and --key');
  if (values.cert !== undefined && values.key !== undefined) {
    options.tls = { cert: readGiven('--cert', values.cert), key: readGiven('--key', values.key) };
    if (values.ca !== undefined) readGiven('--ca', values.ca);
    return { options, caFile: values.ca ?? values.cert };
  }
  return values['tls-dir'] === undefined ? { options } : { options, tlsDir: values['tls-dir'] };
}

/** The names a certificate must cover: loopback, and the --host clients connect to when it is specific. */
function tlsNames(host: string | undefined, defaults: readonly string[]): string[] {
  const specific = host !== undefined && host !== '' && host !== '0.0.0.0' && host !== '::';
  return specific && !defaults.includes(host) ? [...defaults, host] : [...defaults];
}

async function main(): Promise<void> {
  let parsed: Parsed;
  try {
    parsed = optionsFrom(process.argv.slice(2));
  } catch (error) {
    console.error(`routeros-emulator: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  let caFile = parsed.caFile;
  if (parsed.tlsDir !== undefined) {
    const { DEFAULT_TLS_NAMES, tlsFolder } = await import('./tls.js');
    const folder = await tlsFolder(parsed.tlsDir, tlsNames(parsed.options.host, DEFAULT_TLS_NAMES));
    parsed.options.tls = { cert: folder.cert, key: folder.key };
    caFile = folder.caFile;
    for (const note of folder.notes) console.error(`routeros-emulator: ${note}`);
  }
  // Loaded once the command line is read: a usage error needs none of the emulator (0.35 s of CPU to load).
  const { startEmulator } = await import('./emulator.js');
  const emulator = await startEmulator(parsed.options);
  let tmp: string | undefined;
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void emulator.close().then(() => {
      if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
      process.exit(0);
    });
  };
  // Handlers first: whoever reads the banner below may signal us the moment it appears.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (caFile === undefined) {
    tmp = mkdtempSync(join(tmpdir(), 'routeros-emulator-'));
    caFile = join(tmp, 'ca.pem');
    writeFileSync(caFile, emulator.ca);
    console.error('routeros-emulator: a new CA for this run only (removed at exit); --tls-dir DIR keeps one across restarts');
  }
  for (const r of emulator.routers) console.log(`${r.name} ${r.url}`);
  console.log(`ca ${caFile}`);
}

main().catch((error: unknown) => {
  // One line, no stack: a port in use or an address that is not local is the user's to fix, not a bug.
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  console.error(`routeros-emulator: ${error instanceof Error ? error.message : String(error)}${code === undefined || String(error).includes(code) ? '' : ` (${code})`}`);
  process.exit(1);
});
