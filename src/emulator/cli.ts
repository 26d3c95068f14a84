#!/usr/bin/env node
/**
 * routeros-emulator: the emulator alone, for trying Prometheus/Grafana set-ups, benchmarks and soaks.
 *   routeros-emulator [--port N] [--host H] [--routers N --interfaces N --peers N]
 *                     [--command-timeout 60s] [--cert F --key F] [--control]
 * With only --port it serves the demo scenario, router i on port+i; with --routers the scale one.
 * Exit codes: 0 after SIGTERM/SIGINT, 1 runtime failure, 2 usage error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from './emulator.js';
import type { EmulatorOptions } from './types.js';
import { parseDurationMicros } from './util/duration.js';

const USAGE =
  'usage: routeros-emulator [--port N] [--host H] [--routers N --interfaces N --peers N]\n' +
  '                         [--command-timeout 60s] [--cert FILE --key FILE] [--control]';

class UsageError extends Error {}

function count(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer >= ${min}`);
  return Number(value);
}

function optionsFrom(argv: string[]): { options: EmulatorOptions; certFile?: string } {
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
      cert: { type: 'string' },
      key: { type: 'string' },
      control: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  const options: EmulatorOptions = { port: count('port', values.port, 0, 0), control: values.control ?? false };
  if (values.host !== undefined) options.host = values.host;
  if (values.routers !== undefined || values.interfaces !== undefined || values.peers !== undefined) {
    options.scenario = 'scale';
    options.scale = {
      routers: count('routers', values.routers, 1, 1),
      interfaces: count('interfaces', values.interfaces, 1, 1),
      peers: count('peers', values.peers, 10, 0),
    };
  }
  const timeout = values['command-timeout'];
  if (timeout !== undefined) {
    const us = parseDurationMicros(timeout);
    if (us === undefined || us <= 0) throw new UsageError('--command-timeout must be a duration such as 60s');
    options.commandTimeoutMs = us / 1000;
  }
  if ((values.cert === undefined) !== (values.key === undefined)) throw new UsageError('--cert and --key go together');
  if (values.cert !== undefined && values.key !== undefined) {
    options.tls = { cert: readFileSync(values.cert, 'utf8'), key: readFileSync(values.key, 'utf8') };
    return { options, certFile: values.cert };
  }
  return { options };
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof optionsFrom>;
  try {
    parsed = optionsFrom(process.argv.slice(2));
  } catch (error) {
    console.error(`routeros-emulator: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
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
  let caFile = parsed.certFile;
  if (caFile === undefined) {
    tmp = mkdtempSync(join(tmpdir(), 'routeros-emulator-'));
    caFile = join(tmp, 'ca.pem');
    writeFileSync(caFile, emulator.ca);
  }
  for (const r of emulator.routers) console.log(`${r.name} ${r.url}`);
  console.log(`ca ${caFile}`);
}

main().catch((error: unknown) => {
  console.error('routeros-emulator:', error);
  process.exit(1);
});
