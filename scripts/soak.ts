/**
 * Soak: the built daemon (dist/main.js) polls the built emulator (dist/emulator/cli.js --control), each in its
 * own process, on 1 s schedules for N minutes while faults rotate across the routers through the emulator's
 * control endpoint (hangs, slow bodies, 401/500/503, broken, truncated, wrong-shape and big replies, unknown
 * value forms, reboots); one more router refuses connections throughout. This process only scrapes /metrics
 * every second, as a Prometheus would, so its timings are the daemon's. Every few seconds the daemon's RSS,
 * heap, event-loop lag (p99 since the previous scrape) and scrape time are printed; the last line is
 * `SOAK {json}` with RSS growth after the warm-up.
 *   tsx scripts/soak.ts [--minutes 10] [--routers 10] [--peers 200] [--sample 5s] [--rotate 10s]
 *                       [--warmup 2m] [--max-growth-percent 5] [--max-lag-ms 500] [--dist DIR]
 * Exit 0 when the daemon stayed up, every scrape succeeded and the limits held; 1 otherwise; 2 on bad usage.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { parseDuration } from '../src/config/duration.js';
import { FAULT_CYCLE, type SoakFault } from './soak/faults.js';
import { unusedPort } from '../test/helpers/ports.js';
import { rssOf, run, stop, waitFor } from './soak/processes.js';
import { summarise, type Sample, type Scrape } from './soak/summary.js';

interface Router {
  name: string;
  url: string;
}


function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      minutes: { type: 'string', default: '10' },
      routers: { type: 'string', default: '10' },
      peers: { type: 'string', default: '200' },
      sample: { type: 'string', default: '5s' },
      rotate: { type: 'string', default: '10s' },
      warmup: { type: 'string' },
      'max-growth-percent': { type: 'string' },
      'max-lag-ms': { type: 'string', default: '500' },
      dist: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
    },
  });
  const number = (name: string, text: string | undefined): number => {
    const value = Number(text);
    if (text === undefined || !Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const minutes = number('minutes', values.minutes);
  return {
    minutes,
    routers: Math.round(number('routers', values.routers)),
    peers: Math.round(number('peers', values.peers)),
    sampleMs: parseDuration(values.sample) * 1000,
    rotateMs: parseDuration(values.rotate) * 1000,
    // By default the first fifth of the run, at most 2 minutes: heaps and caches settle first.
    warmupMs: values.warmup === undefined ? Math.min(120_000, minutes * 12_000) : parseDuration(values.warmup) * 1000,
    maxGrowthPercent: values['max-growth-percent'] === undefined ? undefined : number('max-growth-percent', values['max-growth-percent']),
    maxLagMs: number('max-lag-ms', values['max-lag-ms']),
    main: join(values.dist, 'main.js'),
    emulator: join(values.dist, 'emulator', 'cli.js'),
  };
}

/** The first sample of a metric without labels in an exposition. */
function gauge(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match === null ? undefined : Number(match[1]);
}

async function main(): Promise<number> {
  let opts: ReturnType<typeof options>;
  try {
    opts = options(process.argv.slice(2));
  } catch (error) {
    console.error(`soak: ${(error as Error).message}`);
    return 2;
  }
  if (!existsSync(opts.main) || !existsSync(opts.emulator)) {
    console.error(`soak: no build in ${opts.main}; run \`npm run build\` first`);
    return 2;
  }
  const emulator = run([opts.emulator, '--routers', String(opts.routers), '--interfaces', '2', '--peers', String(opts.peers), '--control']);
  const dir = mkdtempSync(join(tmpdir(), 'routeros-soak-'));
  let daemon: ReturnType<typeof run> | undefined;
  let control: Agent | undefined;
  const samples: Sample[] = [];
  const scrapes: Scrape[] = [];
  let scrapeFailures = 0;
  try {
    const caFile = await waitFor('the emulator', () => /^ca (.+)$/m.exec(emulator.output())?.[1], () => emulator.exited() !== undefined);
    const routers: Router[] = [...emulator.output().matchAll(/^(scale-\d+) (https:\S+)$/gm)].map(([, name = '', url = '']) => ({ name, url }));
    control = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
    const configFile = join(dir, 'config.yml');
    writeFileSync(
      configFile,
      [
        'listen: 127.0.0.1:0',
        'defaults:',
        '  username: admin',
        '  password: ""',
        '  timeout: 900ms',
        `  tls: { ca_file: "${caFile}" }`,
        '  schedules: { system: "* * * * * *", wireguard: "* * * * * *", ping: "*/5 * * * * *" }',
        'routers:',
        ...routers.map((router) => `  - { name: ${router.name}, url: "${router.url}", ping: [{ target: 10.100.0.3, count: 2, interval: 100ms }] }`),
        `  - { name: gone, url: "https://127.0.0.1:${await unusedPort()}" }`,
      ].join('\n'),
    );
    const started = run([opts.main], { ROUTEROS_EXPORTER_CONFIG: configFile });
    daemon = started;
    const url = await waitFor('the daemon', () => /"url":"(http[^"]+)"/.exec(started.output())?.[1], () => started.exited() !== undefined);
    const pid = started.child.pid ?? 0;
    const start = Date.now();
    const end = start + opts.minutes * 60_000;
    let nextSample = start;
    let nextRotate = start + opts.rotateMs;
    let step = 0;
    let faulty: string[] = [];
    console.log(`soak: ${opts.routers} routers × ${opts.peers} peers + 1 refusing, 1 s schedules, ${opts.minutes} min, daemon pid ${pid} at ${url}`);
    console.log('   t/s   rss/MiB  heap/MiB   ext/MiB  lag p99/ms  scrape/ms  faults');
    while (Date.now() < end) {
      if (started.exited() !== undefined) {
        const signal = /"signal":"(\w+)","msg":"shutting down"/.exec(started.output())?.[1];
        const why = signal === undefined ? '' : `: something else sent it ${signal}`;
        throw new Error(`the daemon exited (${started.exited()})${why}; its last log lines:\n${started.output().trimEnd().split('\n').slice(-5).join('\n')}`);
      }
      const began = performance.now();
      let text = '';
      try {
        const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
        text = await response.text();
        if (response.status !== 200) scrapeFailures++;
      } catch {
        scrapeFailures++;
      }
      const scrape: Scrape = { ms: performance.now() - began, lagP99Ms: (gauge(text, 'nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000 };
      scrapes.push(scrape);
      const now = Date.now();
      if (now >= nextRotate) {
        faulty = await rotate(routers, step++, control);
        nextRotate += opts.rotateMs;
      }
      if (now >= nextSample) {
        const sample: Sample = {
          t: (now - start) / 1000,
          rss: rssOf(pid) ?? gauge(text, 'process_resident_memory_bytes') ?? NaN,
          heap: gauge(text, 'nodejs_heap_size_used_bytes') ?? NaN,
          external: gauge(text, 'nodejs_external_memory_bytes') ?? NaN,
        };
        samples.push(sample);
        const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1).padStart(9);
        const fixed = (ms: number, width: number): string => ms.toFixed(1).padStart(width);
        console.log(
          `${sample.t.toFixed(0).padStart(6)} ${mib(sample.rss)} ${mib(sample.heap)} ${mib(sample.external)} ${fixed(scrape.lagP99Ms, 11)} ${fixed(scrape.ms, 10)}  ${faulty.join(' ')}`,
        );
        nextSample += opts.sampleMs;
      }
      await sleep(Math.max(0, 1000 - (performance.now() - began)));
    }
  } finally {
    if (daemon !== undefined) await stop(daemon);
    await stop(emulator);
    await control?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const exited = daemon?.exited();
  const logLines = (daemon?.output().split('\n').length ?? 1) - 1;
  const summary = summarise(samples, scrapes, { warmupSeconds: opts.warmupMs / 1000, minutes: opts.minutes, routers: opts.routers, peers: opts.peers });
  const ok =
    exited === 0 &&
    scrapeFailures === 0 &&
    summary.lagP99MaxMs <= opts.maxLagMs &&
    (opts.maxGrowthPercent === undefined || summary.rssGrowthPercent <= opts.maxGrowthPercent);
  console.log(`SOAK ${JSON.stringify({ ...summary, scrapeFailures, logLines, daemonExit: exited, ok })}`);
  return ok ? 0 : 1;
}

let nextFault = 0;

/** Clears last step's faults, then gives half the routers (the other half each step) the next faults in the cycle. */
async function rotate(routers: readonly Router[], step: number, control: Agent): Promise<string[]> {
  const call = async (router: Router, method: string, path: string, body?: unknown): Promise<void> => {
    const response = await request(`${router.url}${path}`, {
      method: method as 'GET' | 'POST' | 'DELETE',
      headers: { authorization: `Basic ${Buffer.from('admin:').toString('base64')}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      dispatcher: control,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${router.name} ${method} ${path}: ${response.statusCode} ${text}`);
  };
  const applied: string[] = [];
  for (const [i, router] of routers.entries()) {
    await call(router, 'DELETE', '/emulator/faults');
    if ((i + step) % 2 === 1) continue;
    const fault: SoakFault = FAULT_CYCLE[nextFault++ % FAULT_CYCLE.length] as SoakFault;
    if (fault.faults !== undefined) await call(router, 'POST', '/emulator/faults', fault.faults);
    if (fault.reboot === true) await call(router, 'POST', '/emulator/reboot');
    applied.push(`${router.name.replace('scale-', '')}:${fault.name}`);
  }
  return applied;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
