/**
 * The exporter under test: a config for the emulated routers, `node dist/main.js --config` as a child
 * process (the shipped build, not the TypeScript sources), and a wait for /-/ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COLLECTOR_NAMES } from '../src/collectors/descriptors.js';
import type { IdleConnection } from '../src/config/types.js';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
export const MAIN = join(REPO, 'dist', 'main.js');

/** The scale scenario's ping targets (src/emulator/scenarios/scale.ts): one answering, one lossy. */
const PING_TARGETS = ['10.100.0.2', '10.100.0.3'];

export interface ExporterPlan {
  routers: readonly { name: string; url: string }[];
  caFile: string;
  port: number;
  scheduleSeconds: number;
  /** A ping run takes count × interval; kept well inside the schedule. */
  pingCount: number;
  pingIntervalMs: number;
  /** Fleet shape: only system and wireguard, no pings (unless `fleetPing`). */
  fleet?: boolean;
  /** Fleet shape with the scale scenario's two ping targets on every router as well. */
  fleetPing?: boolean;
  /** The routers' `idle_connection` (the exporter's default, keep, when absent). */
  idleConnection?: IdleConnection;
}

export function exporterConfig(plan: ExporterPlan): string {
  const every = `"*/${plan.scheduleSeconds} * * * * *"`;
  const timeout = Math.max(1, Math.min(10, plan.scheduleSeconds - 1));
  const ping = PING_TARGETS.map((t) => `{ target: ${t}, count: ${plan.pingCount}, interval: ${plan.pingIntervalMs}ms }`).join(', ');
  const pings = plan.fleet !== true || plan.fleetPing === true;
  const routers = plan.routers.map((r) => (pings ? `  - { name: ${r.name}, url: "${r.url}", ping: [${ping}] }` : `  - { name: ${r.name}, url: "${r.url}" }`)).join('\n');
  const collectors = COLLECTOR_NAMES.map((name) => `${name}: ${name === 'system' || name === 'wireguard' || (pings && name === 'ping')}`).join(', ');
  return [
    `listen: 127.0.0.1:${plan.port}`,
    'log_level: warn',
    'defaults:',
    '  username: admin',
    '  password: ""',
    `  timeout: ${timeout}s`,
    ...(plan.idleConnection === undefined ? [] : [`  idle_connection: ${plan.idleConnection}`]),
    `  tls: { ca_file: ${JSON.stringify(plan.caFile)} }`,
    `  schedules: { system: ${every}, wireguard: ${every}, ping: ${every} }`,
    ...(plan.fleet === true ? [`  collectors: { ${collectors} }`] : []),
    'routers:',
    routers,
    '',
  ].join('\n');
}

/**
 * How the exporter runs, for the BENCH line: the Node.js version (the bench's own, which the exporter is started
 * with), the Node.js options it gets (NODE_OPTIONS and BENCH_EXPORTER_NODE_ARGS; the Docker image sets
 * NODE_OPTIONS too, see its Dockerfile, and V8's heap differs by major) and what BENCH_EXPORTER_ENV adds to its
 * environment alone (the image's allocator setting, without the bench's own client and the emulator taking it too).
 */
export function exporterRuntime(): { node: string; node_options: string; exporter_env: string } {
  const options = [process.env.NODE_OPTIONS ?? '', process.env.BENCH_EXPORTER_NODE_ARGS ?? ''].join(' ').trim();
  return { node: process.version, node_options: options, exporter_env: (process.env.BENCH_EXPORTER_ENV ?? '').trim() };
}

/** BENCH_EXPORTER_ENV="NAME=value NAME=value": variables for the exporter's process only. */
export function exporterEnv(text = process.env.BENCH_EXPORTER_ENV ?? ''): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of text.split(' ').filter((part) => part !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_EXPORTER_ENV: "${pair}" is not NAME=value`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

export function startExporter(dir: string, plan: ExporterPlan, main = MAIN): ChildProcess {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const file = join(dir, 'exporter.yml');
  writeFileSync(file, exporterConfig(plan));
  // BENCH_EXPORTER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p" profiles the exporter alone (not the emulator).
  const nodeArgs = (process.env.BENCH_EXPORTER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  // BENCH_EXPORTER_STDOUT=FILE keeps the exporter's stdout (its log lines, and what --trace-gc prints) in FILE.
  const stdoutFile = process.env.BENCH_EXPORTER_STDOUT;
  const stdout = stdoutFile === undefined || stdoutFile === '' ? 'ignore' : openSync(stdoutFile, 'w');
  return spawn(process.execPath, [...nodeArgs, main, '--config', file], { stdio: ['ignore', stdout, 'inherit'], env: { ...process.env, ...exporterEnv() } });
}

/** Polls /-/ready (every planned job tried once); resolves with the seconds it took. */
export async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`the exporter exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/-/ready`);
      await response.arrayBuffer();
      if (response.status === 200) return (performance.now() - started) / 1000;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the exporter was not ready within ${timeoutMs} ms`);
}
