/** Command-line flags of `npm run bench`. */
import { parseArgs } from 'node:util';
import { IDLE_CONNECTIONS, type IdleConnection } from '../src/config/types.js';

export interface BenchOptions {
  routers: number;
  interfaces: number;
  peers: number;
  /** Every collector (system, wireguard, ping) runs every this many seconds. */
  scheduleSeconds: number;
  /** Collection cycles the CPU and fetch figures are averaged over. */
  cycles: number;
  /** Scrapes per target (plain, gzip, static, static gzip, naive). */
  scrapes: number;
  pingCount: number;
  pingIntervalMs: number;
  naive: boolean;
  quick: boolean;
  /** The exporter's entry point; default dist/main.js of this checkout (another build, for A/B runs). */
  main: string | undefined;
  /** Fleet shape (issue 14): many small routers, system + wireguard only, connection and tick figures. */
  fleet: boolean;
  /** The emulated routers' keep-alive timeout (default: the emulator's, 30 s). */
  keepAliveSeconds: number | undefined;
  /** The emulated routers' TLS session resumption (default: the emulator's, tickets). */
  resumption: 'tickets' | 'cache' | 'off' | undefined;
  /** The exporter's `idle_connection` (default keep): `close` closes each router's connection between cycles. */
  idleConnection: IdleConnection;
  /** With --fleet: every router also pings the scale scenario's two targets (count 1, 10 ms) on the schedule. */
  fleetPing: boolean;
  /** With --fleet: this many of the routers accept connections and never answer (their requests time out). */
  hung: number;
  /** With --fleet: this many routers start hanging as the measured cycles begin (after answering through the warm-up). */
  outage: number;
  /** One router whose peer list is near the reply cap: how long its reply holds the exporter's event loop. */
  bigReply: boolean;
}

export const USAGE = `usage: npm run bench -- [--quick] [--routers N] [--peers N] [--interfaces N] [--schedule SECONDS]
                          [--cycles N] [--scrapes N] [--ping-count N] [--ping-interval MS] [--no-naive]
                          [--main path/to/dist/main.js]
                          [--fleet] [--keep-alive SECONDS] [--resumption tickets|cache|off]
                          [--idle-connection keep|close] [--ping] [--hung N] [--outage N]
                          [--big-reply [--peers N]]
  default: 100 routers × 1000 peers over 4 interfaces, system + wireguard + 2 pings every 30 s,
           CPU over 3 cycles, 20 scrapes per target
  --quick: 10 routers × 100 peers, every 5 s, 2 cycles (well under a minute)
  --fleet: 1000 routers × 4 peers on 1 interface, system + wireguard every 30 s, 3 cycles: collection CPU,
           TLS handshakes vs resumptions per cycle, memory per router, time until every router is collected
           after the tick (--routers up to 10000; --keep-alive and --resumption set the emulated routers'),
           40 rounds of plain scrapes against the static buffer
  --idle-connection: with --fleet, the exporter's idle_connection setting (default keep)
  --ping: with --fleet, every router also pings two targets each cycle (its command connections' figures)
  --hung N: with --fleet, N of the routers accept connections and never answer (default 0); the figures then
           say how many of the others were collected in each cycle
  --outage N: with --fleet, N of the routers answer through the warm-up and stop answering just before the first
           measured tick (the onset of an outage: the first measured cycle is its first)
  --big-reply: one router of 80,000 peers (--peers), a ~25 MB reply near the 32 MiB cap, system + wireguard every
           30 s: the exporter's worst event-loop delay over one collection, the worst wait of /-/healthy sent every
           10 ms through it, and the wireguard run's duration`;

const FULL = { routers: 100, interfaces: 4, peers: 1000, scheduleSeconds: 30, cycles: 3, scrapes: 20, pingCount: 3, pingIntervalMs: 1000 };
// 40 rounds: the p50 of 10 plain scrapes against 10 of the static buffer moved between 0.8 and 1.5 × from run to run
// of the same code (a scrape takes 5–30 ms on the shared 2-core machine); 40 more take under 2 s.
const FLEET = { routers: 1000, interfaces: 1, peers: 4, scheduleSeconds: 30, cycles: 3, scrapes: 40, pingCount: 1, pingIntervalMs: 10 };
const BIG_REPLY = { routers: 1, interfaces: 4, peers: 80_000, scheduleSeconds: 30, cycles: 1, scrapes: 1, pingCount: 1, pingIntervalMs: 10 };
const QUICK = { routers: 10, interfaces: 4, peers: 100, scheduleSeconds: 5, cycles: 2, scrapes: 20, pingCount: 2, pingIntervalMs: 500 };

function integer(name: string, text: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new Error(`--${name} must be a whole number from ${min} to ${max}\n${USAGE}`);
  }
  return Number(text);
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean' },
      routers: { type: 'string' },
      interfaces: { type: 'string' },
      peers: { type: 'string' },
      schedule: { type: 'string' },
      cycles: { type: 'string' },
      scrapes: { type: 'string' },
      'ping-count': { type: 'string' },
      'ping-interval': { type: 'string' },
      'no-naive': { type: 'boolean' },
      main: { type: 'string' },
      fleet: { type: 'boolean' },
      'keep-alive': { type: 'string' },
      resumption: { type: 'string' },
      'idle-connection': { type: 'string' },
      ping: { type: 'boolean' },
      hung: { type: 'string' },
      outage: { type: 'string' },
      'big-reply': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  const fleet = values.fleet === true;
  const bigReply = values['big-reply'] === true;
  if (bigReply && (fleet || values.quick === true || values.routers !== undefined)) throw new Error(`--big-reply is one router of its own: not with --fleet, --quick or --routers\n${USAGE}`);
  const base = bigReply ? BIG_REPLY : fleet ? FLEET : values.quick === true ? QUICK : FULL;
  const resumption = values.resumption;
  if (resumption !== undefined && resumption !== 'tickets' && resumption !== 'cache' && resumption !== 'off') {
    throw new Error(`--resumption must be tickets, cache or off\n${USAGE}`);
  }
  const idleConnection = IDLE_CONNECTIONS.find((value) => value === (values['idle-connection'] ?? 'keep'));
  if (idleConnection === undefined) throw new Error(`--idle-connection must be ${IDLE_CONNECTIONS.join(' or ')}\n${USAGE}`);
  const scheduleSeconds = integer('schedule', values.schedule, base.scheduleSeconds, 2, 60);
  // A seconds-field step (*/N) only spaces runs evenly when N divides 60.
  if (60 % scheduleSeconds !== 0) throw new Error(`--schedule must divide 60 (2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60)\n${USAGE}`);
  const routers = integer('routers', values.routers, base.routers, 1, fleet ? 10_000 : 1000);
  if (!fleet && (values.hung !== undefined || values.outage !== undefined || values.ping !== undefined)) {
    throw new Error(`--hung, --outage and --ping need --fleet\n${USAGE}`);
  }
  const options: BenchOptions = {
    routers,
    interfaces: integer('interfaces', values.interfaces, base.interfaces, 1),
    peers: integer('peers', values.peers, base.peers, 0),
    scheduleSeconds,
    cycles: integer('cycles', values.cycles, base.cycles, 1),
    scrapes: integer('scrapes', values.scrapes, base.scrapes, 1),
    pingCount: integer('ping-count', values['ping-count'], base.pingCount, 1, 100),
    pingIntervalMs: integer('ping-interval', values['ping-interval'], base.pingIntervalMs, 10),
    naive: !fleet && !bigReply && values['no-naive'] !== true,
    quick: values.quick === true,
    main: values.main,
    fleet,
    keepAliveSeconds: values['keep-alive'] === undefined ? undefined : integer('keep-alive', values['keep-alive'], 30, 1, 3600),
    resumption,
    idleConnection,
    fleetPing: values.ping === true,
    hung: integer('hung', values.hung, 0, 0, routers - 1),
    outage: integer('outage', values.outage, 0, 0, routers - 1),
    bigReply,
  };
  if (options.hung > 0 && options.outage > 0) throw new Error(`--hung and --outage are one or the other\n${USAGE}`);
  if (!fleet && (options.pingCount * options.pingIntervalMs) / 1000 >= scheduleSeconds - 1) {
    throw new Error(`a ping run (--ping-count × --ping-interval) must end well inside --schedule\n${USAGE}`);
  }
  return options;
}
