/**
 * The Dockerfile and .dockerignore (STYLE.md rule 14): multi-stage, production-only node_modules, non-root,
 * exec-form CMD running the package's binary, an exec-form HEALTHCHECK without curl, OCI labels.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { dockerInstructions, keyValues, read, readYaml, repoRoot, usage } from './files.js';

const text = read('Dockerfile');
const instructions = dockerInstructions(text);
const last = Math.max(...instructions.map((i) => i.stage));
const runtime = instructions.filter((i) => i.stage === last);
const stageNames = instructions.filter((i) => i.keyword === 'FROM').map((i) => /\bAS (\S+)/i.exec(i.args)?.[1]);
const stageOf = (name: string) => instructions.filter((i) => i.stage === stageNames.indexOf(name));
const one = (keyword: string) => {
  const found = runtime.filter((i) => i.keyword === keyword);
  expect(found, keyword).toHaveLength(1);
  return found[0]?.args ?? '';
};
const pkg = readYaml<{ version: string; license: string; bin: Record<string, string> }>('package.json');
const globalArgs = keyValues(instructions.filter((i) => i.stage === -1 && i.keyword === 'ARG').map((i) => i.args).join(' '));

const imageMajor = Number(/^node:(\d+)-bookworm-slim$/.exec(globalArgs.get('NODE_IMAGE') ?? '')?.[1]);

it('builds from a current Node LTS slim image, pinned by digest, in separate build, dependency and runtime stages', () => {
  expect(stageNames).toEqual(['build', 'deps', 'runtime']);
  expect(imageMajor >= 22 && imageMajor % 2 === 0, globalArgs.get('NODE_IMAGE')).toBe(true);
  expect(globalArgs.get('NODE_DIGEST')).toMatch(/^sha256:[0-9a-f]{64}$/);
  for (const from of instructions.filter((i) => i.keyword === 'FROM')) {
    expect(from.args).toMatch(/^\$\{NODE_IMAGE\}@\$\{NODE_DIGEST\} AS /);
  }
  expect(text).toContain('docker buildx imagetools inspect'); // how to bump it, beside the pin
});

it('has CI run the suite on the Node.js major the image runs, read from the Dockerfile', () => {
  const script = spawnSync('bash', ['scripts/node-for-image.sh', '--major'], { cwd: repoRoot, encoding: 'utf8' });
  expect(script.status, script.stderr).toBe(0);
  expect(Number(script.stdout.trim())).toBe(imageMajor);
  const ci = read('.ci/run');
  const lines = ci.split('\n').map((line) => line.trim());
  expect(lines).toContain('node_bin=$(bash scripts/node-for-image.sh)');
  expect(lines).toContain('image_major=$(bash scripts/node-for-image.sh --major)');
  expect(ci).toMatch(/"\$\(\s*"\$node_bin\/node" --version \| cut -d\. -f1\)" != "v\$image_major"/);
  // The suite runs in the fresh clone with that node first on PATH (the Quick start ends with npm test).
  expect(lines).toContain('(cd "$clone_parent/repo" && PATH="$node_bin:$PATH" bash scripts/readme-quickstart.sh)');
  const quickStart = /## Quick start[^]*?```sh\n([^]*?)```/.exec(read('README.md'))?.[1] ?? '';
  expect(quickStart.split('\n')).toContain('npm test');
});

it('compiles with npm ci and npm run build, and installs production dependencies without scripts', () => {
  const runs = (stage: string) => stageOf(stage).filter((i) => i.keyword === 'RUN').map((i) => i.args);
  expect(runs('build').some((r) => r.startsWith('npm ci'))).toBe(true);
  expect(runs('build')).toContain('npm run build');
  expect(runs('deps').some((r) => r.includes('npm ci --omit=dev --ignore-scripts'))).toBe(true);
  const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  expect(copies).toContain('--from=deps /app/node_modules ./node_modules');
  expect(copies).toContain('--from=build /app/dist ./dist');
  expect(copies).toContain('package.json ./');
  expect(runtime.some((i) => i.keyword === 'RUN'), 'the runtime stage installs nothing').toBe(false);
});

it('runs the package binary as the node user, exec form, on port 9731 with the config path its usage names', () => {
  expect(one('USER')).toBe('node');
  expect(one('EXPOSE')).toBe('9731');
  const cmd = JSON.parse(one('CMD')) as string[];
  expect(cmd).toEqual(['node', pkg.bin['routeros-exporter']]);
  expect(cmd[1]).toBe('dist/main.js');
  const env = keyValues(one('ENV'));
  expect(env.get('ROUTEROS_EXPORTER_CONFIG')).toBe('/etc/routeros-exporter/config.yml');
  expect(usage).toContain('ROUTEROS_EXPORTER_CONFIG=FILE');
});

/** What a node of this machine prints (a number) with one variable of its environment set to `value`, or unset. */
function nodeNumber(args: string[], variable: string, value: string | undefined): number {
  const env = { ...process.env };
  if (value === undefined) delete env[variable];
  else env[variable] = value;
  const run = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 30_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return Number(run.stdout.trim());
}

it("caps V8's young generation at 4 MiB semi-spaces through NODE_OPTIONS, which Node accepts and applies", () => {
  const options = keyValues(one('ENV')).get('NODE_OPTIONS');
  expect(options).toBe('--max-semi-space-size=4');
  const semiSpaceMiB = Number(/^--max-semi-space-size=(\d+)$/.exec(options ?? '')?.[1]);
  const heapLimit = (nodeOptions: string | undefined) => nodeNumber(['-p', "require('node:v8').getHeapStatistics().heap_size_limit"], 'NODE_OPTIONS', nodeOptions);
  // V8 reserves the young generation inside its heap limit as a whole number of semi-spaces (three on Node 20 and
  // 24), so the limit tells exactly what semi-space the option set, with no garbage collection to wait for. How
  // far a burst grows the young generation depends on V8's survival heuristics and the machine, so it is not asked.
  const capped = heapLimit(options);
  const oneMiB = heapLimit('--max-semi-space-size=1');
  const uncapped = heapLimit(undefined);
  const mib = 1024 * 1024;
  const semiSpacesReserved = (capped - oneMiB) / ((semiSpaceMiB - 1) * mib);
  expect(Number.isInteger(semiSpacesReserved)).toBe(true);
  expect(semiSpacesReserved).toBeGreaterThanOrEqual(2);
  expect(semiSpacesReserved).toBeLessThanOrEqual(3);
  // The option is a cap below Node's own default on a machine of this size (Node 20: 16 MiB; Node 24: 32 MiB).
  expect(uncapped).toBeGreaterThan(capped);
});

it('has glibc give freed blocks of 64 KiB and more back to the system through MALLOC_MMAP_THRESHOLD_, which glibc applies', () => {
  const threshold = keyValues(one('ENV')).get('MALLOC_MMAP_THRESHOLD_');
  expect(threshold).toBe('65536');
  // 1,024 blocks of 64 KiB (a kept TLS connection's read buffer is one), each followed by a small block that stays,
  // then freed: how much of the process's resident memory went back. Mapped on their own, they are unmapped when
  // freed; in glibc's heap, the small blocks above them keep the room in the process. Asked this way rather than by
  // how far the main heap ([heap]) grew, which depends on where the machine lets it grow (a CI run once saw it not
  // grow at all without the setting). glibc still serves some big blocks from room its heap has, so about half go.
  const script = [
    "const rss = () => Number(require('node:fs').readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * 4096;",
    'const big = []; const small = [];',
    'for (let i = 0; i < 1024; i++) { big.push(Buffer.allocUnsafeSlow(65536).fill(1)); small.push(Buffer.allocUnsafeSlow(1024).fill(1)); }',
    // Two full collections: the second waits for the first's freeing of array buffers, which V8 may do off-thread.
    'gc(); gc(); const before = rss(); big.length = 0; gc(); gc();',
    'console.log(before - rss());',
  ].join('\n');
  const released = (value: string | undefined) => nodeNumber(['--expose-gc', '-e', script], 'MALLOC_MMAP_THRESHOLD_', value);
  const mib = 1024 * 1024;
  // Measured: 34–41 MiB of the 64 with it on Node 20 and 24; without it, nothing (within a few pages either way).
  expect(released(threshold)).toBeGreaterThanOrEqual(16 * mib);
  expect(released(undefined)).toBeLessThan(4 * mib);
});

it('checks liveness in exec form with Node’s fetch, no curl or wget', () => {
  const healthcheck = one('HEALTHCHECK');
  const exec = /\bCMD (\[.*\])$/.exec(healthcheck)?.[1];
  expect(exec, 'exec-form HEALTHCHECK CMD [...]').toBeDefined();
  const argv = JSON.parse(exec ?? '[]') as string[];
  expect(argv.slice(0, 2)).toEqual(['node', '-e']);
  expect(argv[2]).toContain("fetch(process.env.HEALTHCHECK_URL || 'http://127.0.0.1:9731/-/healthy'");
  expect(argv[2]).toContain('process.exit(r.ok ? 0 : 1)');
  for (const i of instructions) expect(i.args).not.toMatch(/\b(curl|wget)\b/);
});

it('carries OCI labels matching package.json', () => {
  const labels = keyValues(one('LABEL'));
  for (const key of ['title', 'description', 'version', 'revision', 'created', 'source', 'licenses']) {
    expect(labels.has(`org.opencontainers.image.${key}`), key).toBe(true);
  }
  expect(labels.get('org.opencontainers.image.licenses')).toBe(pkg.license);
  expect(labels.get('org.opencontainers.image.base.name')).toBe('docker.io/library/${NODE_IMAGE}');
  expect(labels.get('org.opencontainers.image.base.digest')).toBe('${NODE_DIGEST}');
  const args = keyValues(runtime.filter((i) => i.keyword === 'ARG').map((i) => i.args).join(' '));
  expect(args.get('VERSION')).toBe(pkg.version);
});

it('keeps .dockerignore from hiding what the Dockerfile copies, and keeps local clutter out', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const sources = instructions
    .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
    .flatMap((i) => i.args.split(' ').slice(0, -1));
  expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src']));
  for (const source of sources) expect(patterns, source).not.toContain(source);
  for (const clutter of ['node_modules', 'dist', '.git', '.env']) expect(patterns).toContain(clutter);
});
