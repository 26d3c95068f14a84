/**
 * `check`'s plugin output, read back as Nagios reads it, whatever the routers are called and whatever state they are
 * in: a generator of router, interface, peer and ping names with hostile characters (quotes, pipes, `=`, newlines,
 * control, bidi and non-ASCII characters, lone surrogates, very long), of peer states (handshake ages, keepalives,
 * endpoints, expectations, disabled), ping losses, set-up audits and failed jobs drives the real evaluation and
 * formatter. The
 * output must be a plugin output a Nagios parser reads back: the first line `ROUTEROS <STATE> - text`, the exit code
 * the state's, `|` only before the performance data, every entry `'label'=value[UOM];warn;crit;min;max` with
 * unique labels, values and thresholds those of the evaluation, all within the 8 KiB Nagios keeps; a set-up fix
 * shown only whole and as /health has it (a command pasted into a console); and a password
 * the exporter knows (as is, or in the Basic credentials a proxy echoes) never in it.
 *
 * Seeded (CHECK_OUTPUT_SEED replays a failure fast-check reports).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRouters } from '../../src/health/report.js';
import { EXIT_CODES, formatCheck, MAX_OUTPUT_BYTES, type NagiosState } from '../../src/health/nagios.js';
import type { RouterEvaluation } from '../../src/health/types.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import type { RouterConfig } from '../../src/config/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { ErrorReason } from '../../src/routeros/errors.js';
import { basicEncoding, forgetAllSecrets, registerCredentials } from '../../src/util/redact.js';
import { testRouter } from '../helpers/config.js';
import { failed, ping, setup, systemOk, T0, wireguard } from './snapshots.js';

const SEED = Number(process.env['CHECK_OUTPUT_SEED'] ?? 20261205);
const USER = 'monitor';
const SECRET = 'Pa55-w0rd|hq';
const BASIC = basicEncoding(USER, SECRET);

beforeAll(() => {
  registerCredentials(USER, SECRET);
});

afterAll(() => {
  forgetAllSecrets();
});

// --- Nagios's side: a parser of plugin output, written from the guidelines, not from the formatter ---

interface PerfEntry {
  label: string;
  value: string;
  uom: string;
  warn: string;
  crit: string;
  min: string;
  max: string;
}

interface Parsed {
  state: NagiosState;
  text: string;
  longText: string[];
  perf: PerfEntry[];
}

const STATES: readonly NagiosState[] = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'];
/** A threshold range: `[@][start:][end]`, start a number or `~`, end a number; empty for none. */
const RANGE = /^(?:@?(?:(?:-?\d+(?:\.\d+)?|~):)?(?:-?\d+(?:\.\d+)?)?)$/;
const NUMBER = /^-?\d+(?:\.\d+)?$/;

/** Performance data as Nagios splits it: space-separated `label=data`, a label in single quotes with `''` for a quote. */
function parsePerf(text: string): PerfEntry[] {
  const entries: PerfEntry[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    let label = '';
    if (text[i] === "'") {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error(`unterminated label in ${JSON.stringify(text)}`);
        if (text[i] === "'" && text[i + 1] === "'") {
          label += "'";
          i += 2;
        } else if (text[i] === "'") {
          i++;
          break;
        } else label += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== '=' && text[i] !== ' ') label += text[i++];
    }
    if (text[i] !== '=') throw new Error(`no = after label ${JSON.stringify(label)}`);
    i++;
    let data = '';
    while (i < text.length && text[i] !== ' ') data += text[i++];
    const [valueWithUom = '', warn = '', crit = '', min = '', max = '', ...rest] = data.split(';');
    if (rest.length > 0) throw new Error(`too many fields in ${JSON.stringify(data)}`);
    const match = /^(U|-?\d+(?:\.\d+)?)([a-zA-Z%]*)$/.exec(valueWithUom);
    if (match === null) throw new Error(`bad value ${JSON.stringify(valueWithUom)} of ${JSON.stringify(label)}`);
    entries.push({ label, value: match[1] as string, uom: match[2] as string, warn, crit, min, max });
  }
  return entries;
}

function parsePluginOutput(stdout: string): Parsed {
  if (!stdout.endsWith('\n')) throw new Error('output does not end in a newline');
  const lines = stdout.slice(0, -1).split('\n');
  const [first = '', ...rest] = lines;
  const bar = first.indexOf('|');
  const text = bar < 0 ? first : first.slice(0, bar);
  const head = /^ROUTEROS (OK|WARNING|CRITICAL|UNKNOWN) - /.exec(text);
  if (head === null) throw new Error(`first line ${JSON.stringify(first)}`);
  let perfText = bar < 0 ? '' : first.slice(bar + 1);
  const longText: string[] = [];
  // Long output runs to the first line holding a `|`; what follows it, and every line after, is performance data.
  for (const [index, line] of rest.entries()) {
    const at = line.indexOf('|');
    if (at < 0) {
      longText.push(line);
      continue;
    }
    longText.push(line.slice(0, at));
    perfText = `${perfText} ${[line.slice(at + 1), ...rest.slice(index + 1)].join(' ')}`;
    break;
  }
  return { state: head[1] as NagiosState, text, longText, perf: parsePerf(perfText.trim()) };
}

// --- the generator ---

const HOSTILE = ["'", "''", '|', '=', '\n', '\r', '\t', ' ', '\u0000', '\u001b[2J', '\u009b', '\u202e', '\u2066', '\u2028', 'é', '名', '🙂', '\ud800', '\udfff', '\\', '"', ';', '@', '~', ':', SECRET, BASIC, `Authorization: Basic ${BASIC}`];

/** Router text: names and comments a RouterOS configuration may hold, or a hostile reply sends. */
const routerText = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 8 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', '|', "'", '🙂', SECRET), fc.integer({ min: 90, max: 3_000 })).map(([unit, count]) => unit.repeat(count)) },
  { weight: 1, arbitrary: fc.constantFrom('', 'site', 'laptop') },
);

/** A name the operator writes in the config (validated there: no control characters; `$` would interpolate). */
const configName = fc
  .array(fc.oneof(fc.constantFrom("'", '|', '=', ' ', 'é', '🙂', ';', '\\', 'hq', SECRET), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(''))
  // eslint-disable-next-line no-control-regex
  .filter((text) => !/[\x00-\x1f\x7f$]/.test(text) && text.trim() !== '');

const peerArb = fc.record({
  name: routerText,
  comment: fc.option(routerText, { nil: undefined }),
  handshake: fc.option(fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400_000_000 })), { nil: undefined }),
  keepalive: fc.constantFrom(undefined, '25s', '1h'),
  endpoint: fc.boolean(),
  disabled: fc.boolean(),
  key: fc.oneof(fc.string({ minLength: 1, maxLength: 44 }), routerText.filter((text) => text !== '')),
});

/** A router's name: the config takes safe names only. */
const routerName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/);

const routerArb = fc.record({
  name: routerName,
  iface: routerText.filter((text) => text !== ''),
  expect: fc.constantFrom('auto', 'always', 'on_demand'),
  peers: fc.array(peerArb, { maxLength: 12 }),
  pings: fc.array(fc.record({ name: configName, loss: fc.integer({ min: 0, max: 100 }) }), { maxLength: 3 }),
  system: fc.constantFrom<'ok' | ErrorReason | 'none'>('ok', 'ok', 'ok', 'connect', 'timeout', 'auth', 'none'),
  wireguardFails: fc.option(fc.constantFrom<ErrorReason>('http_5xx', 'parse', 'timeout'), { nil: undefined, freq: 5 }),
  lossCritical: fc.constantFrom(0.5, 0.0004, 1, 0.123456),
  /** The set-up audit's run, and the comment of a firewall rule that drops the tunnel's port (router text). */
  setup: fc.option(routerText, { nil: undefined, freq: 2 }),
});

type RouterCase = typeof routerArb extends fc.Arbitrary<infer T> ? T : never;

function build(cases: readonly RouterCase[]): { routers: RouterConfig[]; snapshots: Map<string, JobSnapshot[]> } {
  const routers: RouterConfig[] = [];
  const snapshots = new Map<string, JobSnapshot[]>();
  for (const [index, c] of cases.entries()) {
    const name = `${c.name}-${index}`;
    const router = testRouter(
      {
        name,
        ping: c.pings.map((p, i) => ({ target: `10.10.${index}.${i + 1}`, name: p.name })),
        health: { expect: { [c.iface]: c.expect }, ping_loss_critical: c.lossCritical },
        collectors: { wireguard_setup: c.setup !== undefined },
      },
      { username: USER, password: SECRET },
    );
    routers.push(router);
    const iface: RouterRecord = { name: c.iface, 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13231' };
    const peers = c.peers.map((p, i) => {
      const record: Record<string, string> = { interface: c.iface, 'public-key': `${p.key}${i}`, name: p.name, disabled: String(p.disabled), 'allowed-address': `10.10.${index}.${i + 1}/32` };
      if (p.comment !== undefined) record['comment'] = p.comment;
      if (p.handshake !== undefined) record['last-handshake'] = `${p.handshake}s`;
      if (p.keepalive !== undefined) record['persistent-keepalive'] = p.keepalive;
      if (p.endpoint) record['endpoint-address'] = '198.51.100.2';
      return record;
    });
    const runs: JobSnapshot[] = [];
    if (c.system === 'ok') runs.push(systemOk());
    else if (c.system !== 'none') runs.push(failed('system', 'system', c.system));
    runs.push(c.wireguardFails === undefined ? wireguard(router, [iface], peers) : failed('wireguard', 'wireguard', c.wireguardFails));
    for (const [i, p] of c.pings.entries()) runs.push(ping(router, i, p.loss));
    if (c.setup !== undefined) {
      const filter = [{ '.id': '*5', chain: 'input', action: 'drop', 'in-interface-list': '!LAN', comment: c.setup }];
      runs.push(setup({ interfaces: [iface], peers, addresses: [], routes: [], filter } as never));
    }
    snapshots.set(name, runs);
  }
  return { routers, snapshots };
}

/** A percentage as the docs say perfdata writes it: to a thousandth, never 0 when it is not. */
function thousandths(percent: number): string {
  const fixed = Math.round(percent * 1000) / 1000;
  return String(fixed === 0 && percent > 0 ? 0.001 : fixed);
}

/** The perfdata an evaluation has to give, as Nagios reads it back: values and thresholds, labels aside. */
function expectedEntries(evaluations: readonly RouterEvaluation[], routers: readonly RouterConfig[]): string[] {
  const out: string[] = [];
  for (const { health } of evaluations) {
    const router = routers.find((candidate) => candidate.name === health.name) as RouterConfig;
    for (const peer of health.peers) {
      if (!peer.judged) continue;
      const age = peer.handshakeAgeSeconds;
      out.push(`handshake_age ${age === null ? 'U' : String(age)} ${age === null ? '' : 's'}`);
    }
    for (const p of health.pings) {
      if (p.lossRatio !== null) out.push(`loss ${thousandths(p.lossRatio * 100)} % crit@${thousandths(router.health.pingLossCritical * 100)}`);
      if (p.rttSeconds.avg !== null) out.push(`rtt ${String(Number((p.rttSeconds.avg * 1000).toFixed(3)))} ms`);
    }
  }
  return out.sort();
}

function readBack(entry: PerfEntry): string {
  const measure = /_(handshake_age|loss|rtt)$/.exec(entry.label)?.[1];
  if (measure === 'loss') return `loss ${entry.value} ${entry.uom} crit@${String(Number(entry.crit.replace(/^@/, '').replace(/:$/, '')))}`;
  if (measure === 'rtt') return `rtt ${entry.value} ${entry.uom}`;
  return `handshake_age ${entry.value} ${entry.uom}`;
}

describe('check output read back by a Nagios parser, whatever the names and states (generated)', () => {
  it('is always a valid plugin output: state and exit code agree, perfdata parses to the evaluation\'s values, bounded, no secret', () => {
    fc.assert(
      fc.property(fc.array(routerArb, { minLength: 1, maxLength: 4 }), (cases) => {
        const { routers, snapshots } = build(cases);
        const evaluated = evaluateRouters(routers, { snapshots: (name) => snapshots.get(name) ?? [] }, T0);
        const out = formatCheck(evaluated, routers);

        // Bounded, one line per line, nothing that steers a terminal.
        expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
        // eslint-disable-next-line no-control-regex
        expect(out.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        // No secret, in any form the exporter sends it.
        expect(out.text).not.toContain(SECRET);
        expect(out.text).not.toContain(BASIC);

        // What Nagios reads: the UTF-8 written to stdout (a lone surrogate goes as U+FFFD).
        const parsed = parsePluginOutput(Buffer.from(out.text, 'utf8').toString('utf8'));
        expect(STATES).toContain(parsed.state);
        expect(out.state).toBe(parsed.state);
        expect(out.code).toBe(EXIT_CODES[parsed.state]);
        // The state is the evaluation's: the worst router's, or CRITICAL/UNKNOWN when none could be reached.
        const allDown = evaluated.evaluations.every((evaluation) => evaluation.health.up !== true);
        if (!allDown) expect(parsed.state).toBe({ ok: 'OK', degraded: 'WARNING', critical: 'CRITICAL' }[evaluated.report.status]);
        else expect(['CRITICAL', 'UNKNOWN']).toContain(parsed.state);
        expect(Buffer.byteLength(out.text.split('\n')[0] as string)).toBeLessThanOrEqual(1_024);
        // A `|` only where the performance data starts: on the last line, never in the text.
        const lines = out.text.slice(0, -1).split('\n');
        for (const line of lines.slice(0, -1)) expect(line).not.toContain('|');
        expect(parsed.text).not.toContain('|');

        // A set-up fix, a command pasted into a console, is shown whole and as /health has it, or not at all.
        const fixes = evaluated.report.routers.flatMap((health) => health.interfaces.flatMap((entry) => entry.setup ?? [])).flatMap((check) => (check.fix === undefined ? [] : [check.fix.replaceAll('\n', ' ; ')]));
        for (const line of [parsed.text, ...parsed.longText]) {
          const at = line.indexOf(' Fix: ');
          if (at >= 0) expect(fixes).toContain(line.slice(at + ' Fix: '.length));
        }

        // Labels: non-empty, unique, free of `'` and `=`.
        const labels = parsed.perf.map((entry) => entry.label);
        expect(new Set(labels).size).toBe(labels.length);
        for (const entry of parsed.perf) {
          expect(entry.label).not.toBe('');
          expect(entry.label).not.toMatch(/['=]/);
          expect(entry.label).toMatch(/_(handshake_age|loss|rtt)$/);
          for (const range of [entry.warn, entry.crit]) expect(range).toMatch(RANGE);
          for (const bound of [entry.min, entry.max]) expect(bound === '' || NUMBER.test(bound)).toBe(true);
          expect(['s', 'ms', '%', '']).toContain(entry.uom);
        }
        // Values read back as the evaluation made them: all of them when none was cut for room, a part of them else.
        if (allDown) {
          expect(parsed.perf).toEqual([]);
          return;
        }
        const expected = expectedEntries(evaluated.evaluations, routers);
        const got = parsed.perf.map(readBack).sort();
        const left = [...expected];
        for (const entry of got) {
          const at = left.indexOf(entry);
          expect(at, `perfdata ${entry} is not one the evaluation made (${JSON.stringify(expected)})`).toBeGreaterThanOrEqual(0);
          left.splice(at, 1);
        }
        if (Buffer.byteLength(out.text) < MAX_OUTPUT_BYTES - 2_000) expect(left).toEqual([]);
      }),
      { seed: SEED, numRuns: 200 },
    );
  }, 20_000);
});
