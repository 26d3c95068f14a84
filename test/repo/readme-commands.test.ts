/**
 * Every command of README.md's ```sh blocks runs as typed: each line goes to bash unchanged, from the clone or
 * from a folder holding a config.yml for the emulator, with the commands that `npm install -g .` puts on the PATH
 * (installed here under a temporary npm prefix). Daemons run until they answer /-/ready (polled), then get
 * SIGTERM and must exit 0. The commands this suite cannot run (it is itself `npm test`, and `npm ci` would
 * replace the node_modules it runs from) are listed with the script that runs them instead, which is checked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { assertBuilt } from '../helpers/cli.js';
import { unusedPort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';
import { repoRoot } from '../dashboards/shipped.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

/** Each command line of each ```sh block, continuations joined, as typed (comments included). */
const commands = [...readme.matchAll(/^```sh\n([^]*?)^```$/gm)].flatMap((m) =>
  (m[1] ?? '')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#')),
);
const withoutComment = (line: string) => line.replace(/\s+#.*$/, '').trim();

/**
 * Commands the suite does not run, with why, and the script that runs them as typed instead: `runs` is the text
 * in that script which does it (for the Quick start, the pattern that picks README.md's block), and a script other
 * than .ci/run must be run by .ci/run.
 */
const QUICK_START = { file: 'scripts/readme-quickstart.sh', runs: '/^## Quick start/', quickStart: true };
const RUN_ELSEWHERE: Record<string, { file: string; runs: string; quickStart?: boolean; why: string }> = {
  'npm ci && npm run demo': { ...QUICK_START, why: 'npm ci would replace the node_modules this suite runs from' },
  'npm test': { ...QUICK_START, why: 'this suite is npm test' },
  'npm ci': { ...QUICK_START, why: 'npm ci would replace the node_modules this suite runs from' },
  'npm run bench': { file: '.ci/run', runs: 'npm run bench -- --quick', why: 'minutes at full scale; CI runs its quick form' },
};

/** How each command that the suite runs is judged. */
type Run =
  | { kind: 'exits'; cwd: 'clone' | 'config'; codes: number[]; output: RegExp }
  | { kind: 'daemon'; cwd: 'config'; ready: () => string }
  | { kind: 'banner'; cwd: 'config'; banner: RegExp };

let emulator: Emulator;
let work: string;
let prefix: string;
let listen: string;
const children: ChildProcess[] = [];

const DEMO_URL = 'http://127.0.0.1:9731';
const RUNS: Record<string, Run> = {
  'npx routeros-exporter --version': { kind: 'exits', cwd: 'clone', codes: [0], output: new RegExp(`^routeros-exporter ${pkg.version.replace(/\./g, '\\.')} `) },
  'npm install -g .': { kind: 'exits', cwd: 'clone', codes: [0], output: /added 1 package|up to date|changed 1 package/ },
  'routeros-exporter --config config.yml': { kind: 'daemon', cwd: 'config', ready: () => `http://${listen}` },
  'routeros-exporter --config config.yml --listen 127.0.0.1:9731 --log-level debug --shard 0/2': {
    kind: 'daemon',
    cwd: 'config',
    ready: () => DEMO_URL,
  },
  'routeros-exporter check-config config.yml': { kind: 'exits', cwd: 'config', codes: [0], output: /^config\.yml: OK$/m },
  'routeros-exporter once --config config.yml': { kind: 'exits', cwd: 'config', codes: [0], output: /^routeros_up\{router="hq"\} 1$/m },
  // The demo scenario has a stale peer, so the verdict is CRITICAL; any Nagios state shows the command works.
  'routeros-exporter check --config config.yml': { kind: 'exits', cwd: 'config', codes: [0, 1, 2], output: /^ROUTEROS (OK|WARNING|CRITICAL) - / },
  'routeros-exporter demo': { kind: 'daemon', cwd: 'config', ready: () => DEMO_URL },
  'routeros-emulator --routers 3 --interfaces 2 --peers 10': { kind: 'banner', cwd: 'config', banner: /^ca \S+\.pem$/m },
};

beforeAll(async () => {
  assertBuilt();
  emulator = await startEmulator({ scenario: 'demo' });
  work = mkdtempSync(join(tmpdir(), 'readme-commands-'));
  prefix = join(work, 'npm-prefix');
  writeFileSync(join(work, 'ca.pem'), emulator.ca);
  listen = `127.0.0.1:${await unusedPort()}`;
  const routers = emulator.routers.map((r) => `  - { name: ${r.name}, url: "${r.url}" }`);
  writeFileSync(
    join(work, 'config.yml'),
    [`listen: ${listen}`, 'defaults:', '  username: admin', '  password: ""', '  timeout: 5s', '  tls: { ca_file: ca.pem }', 'routers:', ...routers, ''].join('\n'),
  );
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  await emulator?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** Runs one README line through bash, in its own process group, with the globally installed commands on PATH. */
function start(line: string, cwd: 'clone' | 'config') {
  const child = spawn('bash', ['-c', line], {
    cwd: cwd === 'clone' ? repoRoot : work,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The npm prefix is what `npm install -g` installs into (and where the PATH finds it); offline: nothing fetched.
    env: { ...process.env, npm_config_prefix: prefix, npm_config_offline: 'true', PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}` },
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output, exited };
}

async function status(url: string): Promise<number> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (response) => response.status,
    () => 0,
  );
}

function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function runLine(line: string): Promise<void> {
  const how = RUNS[withoutComment(line)];
  if (how === undefined) throw new Error(`no way to run: ${line}`);
  if (how.kind === 'exits') {
    const { output, exited } = start(line, how.cwd);
    const code = await exited;
    expect(how.codes, `${line}\n${output.stderr}`).toContain(code);
    expect(output.stdout.trim()).toMatch(how.output);
    return;
  }
  if (how.kind === 'daemon' && how.ready() === DEMO_URL) {
    expect(await portTaken(9731), 'something else listens on 127.0.0.1:9731, which this README line uses').toBe(false);
  }
  const { child, output, exited } = start(line, how.cwd);
  let code: number | null = null;
  void exited.then((c) => (code = c));
  if (how.kind === 'daemon') {
    await waitFor(() => status(`${how.ready()}/-/ready`), (s) => s === 200 || code !== null, { timeout: 30_000, what: `${line}: /-/ready` });
  } else {
    await waitFor(async () => output.stdout, (out) => how.banner.test(out) || code !== null, { timeout: 30_000, what: `${line}: its banner` });
  }
  expect(code, `${line} exited early\n${output.stderr}`).toBeNull();
  process.kill(-(child.pid ?? 0), 'SIGTERM');
  expect(await exited, output.stderr).toBe(0);
}

describe('README.md commands', () => {
  it('are each either run here or run by a checked script', () => {
    expect(commands.length).toBeGreaterThan(10);
    for (const line of commands) {
      const command = withoutComment(line);
      expect(command in RUNS || command in RUN_ELSEWHERE, `README command with no way to check it: ${command}`).toBe(true);
    }
    const listed = new Set(commands.map(withoutComment));
    for (const command of [...Object.keys(RUNS), ...Object.keys(RUN_ELSEWHERE)]) expect(listed, command).toContain(command);
  });

  it.each(Object.entries(RUN_ELSEWHERE))('%s runs elsewhere: %j', (command, { file, runs, quickStart }) => {
    expect(readFileSync(join(repoRoot, file), 'utf8')).toContain(runs);
    if (file !== '.ci/run') expect(readFileSync(join(repoRoot, '.ci/run'), 'utf8')).toContain(`bash ${file}`);
    if (quickStart === true) {
      const block = /## Quick start[^]*?```sh\n([^]*?)```/.exec(readme)?.[1] ?? '';
      const parts = block.split('\n').map(withoutComment).flatMap((line) => [line, ...line.split(' && ')]);
      expect(parts, `${command} is in the Quick start block`).toContain(command);
    }
  });

  it('say how to get the commands: npx in the clone, or npm install -g . for the PATH', () => {
    const using = /## Using it\n([^]*?)```sh/.exec(readme)?.[1] ?? '';
    expect(using).toContain('`npx routeros-exporter --help`');
    expect(using).toContain('`npm install -g .`');
  });

  // In README order: `npm install -g .` comes before the lines that need the commands on the PATH.
  it('run as typed, in order', { timeout: 240_000 }, async () => {
    const order = commands.filter((line) => withoutComment(line) in RUNS);
    expect(order.length).toBe(Object.keys(RUNS).length);
    for (const line of order) await runLine(line);
  });
});
