/**
 * The Nagios plugin convention for `check` (Monitoring Plugins development guidelines): the first line is
 * `ROUTEROS <STATE> - <summary>`, details follow one per line, and performance data comes after a `|`
 * (`'label'=value[unit];warn;crit;min;max`, labels quoted, units s, % and ms). Exit 0 OK, 1 WARNING,
 * 2 CRITICAL, 3 UNKNOWN. degraded maps to WARNING and critical to CRITICAL; UNKNOWN is for "could not tell":
 * no routers, or none tried. Routers tried and not one reached is CRITICAL: the guidelines keep UNKNOWN for the
 * plugin's own failures, not for a host that refuses, times out or does not resolve (a powered-off router
 * checked per host with `--router` must page).
 */
import type { RouterConfig } from '../config/types.js';
import { stripControls, wholePairs } from '../util/text.js';
import { counted } from './format.js';
import type { Evaluated } from './report.js';
import { worst, type PeerHealth, type Problem, type RouterEvaluation, type Status } from './types.js';

export type NagiosState = 'OK' | 'WARNING' | 'CRITICAL' | 'UNKNOWN';
export const EXIT_CODES: Readonly<Record<NagiosState, number>> = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 };
const STATE_OF: Readonly<Record<Status, NagiosState>> = { ok: 'OK', degraded: 'WARNING', critical: 'CRITICAL' };

export interface CheckOutput {
  state: NagiosState;
  code: number;
  /** Every line, each ending in a newline. */
  text: string;
}

/**
 * `|` starts performance data and a newline a new line: neither may come from a router's names; nor may a
 * terminal control (C1 too: 0x9B is a one-byte CSI) or a bidi override that reorders what the operator reads.
 */
export function plain(text: string): string {
  return stripControls(text).replaceAll('|', '/');
}

/**
 * What Nagios Core keeps of a plugin's output (MAX_PLUGIN_OUTPUT_LENGTH, 8 KiB, first line, details and perfdata
 * together): what comes after is cut, wherever it falls. A router of 3,000 peers wrote 270 KB of perfdata, cut
 * inside an entry, so a grapher read a broken last entry and lost every peer after it (found by review). The output
 * stays within it: details take what the first line leaves, up to DETAILS_BYTES, cut at a whole line and saying
 * so; perfdata takes the rest, whole entries only, the worst first (perfdata()).
 */
export const MAX_OUTPUT_BYTES = 8_192;
const DETAILS_BYTES = 4_096;
/** The first line (a site-wide outage named every router in it: 11 KB for 400) and each detail line. */
const FIRST_LINE_BYTES = 1_024;
const DETAIL_LINE_BYTES = 1_000;

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The text within `max` UTF-8 bytes, cut at a whole character with ` …` when it was longer. */
function clipBytes(text: string, max: number): string {
  if (byteLength(text) <= max) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = byteLength(char);
    if (bytes + size > max - 4) break;
    out += char;
    bytes += size;
  }
  return `${out} …`;
}

/** One perfdata entry as written, and how much it matters when not all entries fit (output()). */
export interface PerfEntry {
  readonly text: string;
  readonly rank: number;
}

/** The line that says how many detail lines were left out. */
function cutLine(left: number): string {
  return `… and ${counted(left, 'more line')}, cut to fit the 8 KiB of plugin output Nagios keeps`;
}

/**
 * The plugin output. When not all perfdata entries fit, the highest ranked go first (stable otherwise), so what
 * is wrong is graphed; when all fit they keep their order.
 */
export function output(state: NagiosState, summary: string, details: readonly string[] = [], perfdata: readonly PerfEntry[] = []): CheckOutput {
  const first = clipBytes(`ROUTEROS ${state} - ${plain(summary)}`, FIRST_LINE_BYTES);
  const lines = [first];
  let used = byteLength(first) + 1;
  // Each line bounded on its own: one long finding (a set-up check's ten fixes) would otherwise leave no room for
  // any other line, the routers' status lines included.
  const shown = details.map((line) => clipBytes(plain(line), DETAIL_LINE_BYTES));
  for (const [index, line] of shown.entries()) {
    const rest = shown.length - index;
    // Room kept for the line that says how many were left out, should this be the last that fits.
    if (used + byteLength(line) + 1 > DETAILS_BYTES - (rest > 1 ? byteLength(cutLine(rest - 1)) + 1 : 0)) {
      const cut = cutLine(rest);
      lines.push(cut);
      used += byteLength(cut) + 1;
      break;
    }
    lines.push(line);
    used += byteLength(line) + 1;
  }
  // `| ` and the newline; each entry then a space before it but the first.
  let room = MAX_OUTPUT_BYTES - used - 3;
  // The entries and the spaces between them.
  const total = perfdata.reduce((sum, entry) => sum + byteLength(entry.text), Math.max(0, perfdata.length - 1));
  // Array.prototype.sort is stable: equal ranks keep their order.
  const ordered = total <= room ? perfdata : [...perfdata].sort((a, b) => b.rank - a.rank);
  const entries: string[] = [];
  for (const { text } of ordered) {
    const cost = byteLength(text) + (entries.length > 0 ? 1 : 0);
    if (cost > room) break;
    entries.push(text);
    room -= cost;
  }
  if (entries.length > 0) lines.push(`| ${entries.join(' ')}`);
  return { state, code: EXIT_CODES[state], text: lines.map((line) => `${line}\n`).join('') };
}

/**
 * The plugin output for the evaluated routers. `partial`: other routers are still being waited for, so "no router
 * could be reached" would not be true of the check; the routers found down are then said as such.
 */
export function formatCheck(
  { report, evaluations }: Evaluated,
  routers: readonly RouterConfig[],
  { partial = false, late, notes = [] }: { partial?: boolean; late?: string; notes?: readonly string[] } = {},
): CheckOutput {
  if (evaluations.length === 0) return output('UNKNOWN', 'no routers configured');
  // Notes on how the check looked (a second look it could not make, one window that cannot tell) come first: they
  // explain the lines after them.
  const details = [...notes, ...evaluations.flatMap(detailLines)];
  if (!partial && evaluations.every((evaluation) => evaluation.health.up !== true)) {
    const names = evaluations.map((evaluation) => `${evaluation.health.name} (${evaluation.problems[0]?.brief || 'not tried'})`);
    const tried = evaluations.some((evaluation) => evaluation.health.up === false);
    return output(tried ? 'CRITICAL' : 'UNKNOWN', `no router could be reached: ${names.join(', ')}`, details);
  }
  const state = STATE_OF[report.status];
  // A check past its deadline with routers still unheard: said on the first line of a CRITICAL (within its bound).
  const summary = late !== undefined && state === 'CRITICAL' ? `${report.summary}; ${late}` : report.summary;
  return output(state, summary, details, perfdata(evaluations, routers));
}

/** Problem lines per router, worst first; the rest are counted (a hub with 100,000 stale peers made 14 MB). */
const LISTED_PROBLEMS = 20;

/**
 * A problem's line. A set-up fix is a command an operator pastes into a console: it goes whole and as /health has
 * it, or not at all. Inside a line made plain and cut at DETAIL_LINE_BYTES (output()), an interface named with a few
 * hundred characters had its fix cut short (` …`), and one named `wg|a` had it add an address to `wg/a` (found by
 * review); such a fix is left out, and the line says where it is whole.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemLine(problem: Problem, router: string): string {
  const head = `[${STATE_OF[problem.status]}] ${problem.subject}: `;
  const line = `${head}${problem.text}`;
  const { fix, textWithoutFix } = problem;
  if (fix === undefined || textWithoutFix === undefined) return line;
  // As /health has it: the line's text (made a line of text, bidi controls stripped) may hold another command, and
  // UTF-8 carries no lone surrogate (written as U+FFFD).
  const unaltered = problem.text.endsWith(` Fix: ${fix}`) && plain(fix) === fix && !LONE_SURROGATE.test(fix);
  if (unaltered && byteLength(plain(line)) <= DETAIL_LINE_BYTES) return line;
  const why = unaltered ? 'too long for a line of plugin output' : 'it holds characters plugin output cannot carry';
  return `${head}${textWithoutFix} The fix is left out here (${why}): /health?router=${router} has the fix whole.`;
}

function detailLines({ health, problems }: RouterEvaluation): string[] {
  const lines = problems.slice(0, LISTED_PROBLEMS).map((problem) => problemLine(problem, health.name));
  const hidden = problems.slice(LISTED_PROBLEMS);
  if (hidden.length > 0) {
    const status = worst(hidden.map((problem) => problem.status));
    lines.push(`[${STATE_OF[status]}] ${health.name}: and ${counted(hidden.length, 'more problem')} (/health?router= lists them all)`);
  }
  // Not known before any run has said (null): never 'up' for a router nothing was collected from.
  const state = health.up === false ? 'down' : health.up === true ? 'up' : 'not known yet';
  const enabled = health.interfaces.filter((iface) => !iface.disabled).length;
  const judged = health.peers.filter((peer) => peer.judged).length;
  lines.push(
    `[${STATE_OF[health.status]}] ${health.name}: ${state}, last success ${health.lastSuccess ?? 'never'}; ` +
      `${counted(enabled, 'interface')}, ${counted(health.peers.length, 'peer')} (${judged} judged), ${counted(health.pings.length, 'ping target')}`,
  );
  return lines;
}

/** A perfdata label: quoted by the caller; `'` and `=` are the two characters a label may not hold. */
function label(...parts: string[]): string {
  return `'${plain(parts.map(clip).join('_')).replace(/['=]/g, '_')}'`;
}

/** A name from the router as a label part: at most LABEL_PART characters (a 1 MB name made a 1 MB label). */
const LABEL_PART = 100;

function clip(part: string): string {
  return part.length <= LABEL_PART ? part : wholePairs(part.slice(0, LABEL_PART));
}

/** One perfdata entry before its label is made unique: the label's parts, what tells it from a namesake, the rest. */
interface Entry {
  parts: string[];
  /** Appended where two entries would share a label (a peer's key, a ping's target). */
  distinct: string;
  measure: string;
  data: string;
  /** How much it matters when not all fit: pings first (few, and what they measure is the point), then peers by urgency. */
  rank: number;
}

/**
 * Labels unique within one output: RouterOS peer names and comments need not be unique, nor ping names, and a
 * grapher keys a series by its label (two `'hq_wg_laptop_handshake_age'` would merge, one hiding the other).
 * Where labels clash, each clashing one gets what tells it apart, then its position if that clashes too.
 */
function uniqueLabels(entries: readonly Entry[]): string[] {
  const plainLabel = (entry: Entry, extra: string[]): string => label(...entry.parts, ...extra, entry.measure);
  const count = (labels: readonly string[]): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const text of labels) counts.set(text, (counts.get(text) ?? 0) + 1);
    return counts;
  };
  const first = entries.map((entry) => plainLabel(entry, []));
  const firstCounts = count(first);
  const second = entries.map((entry, i) => ((firstCounts.get(first[i] as string) ?? 0) > 1 ? plainLabel(entry, [entry.distinct]) : (first[i] as string)));
  const secondCounts = count(second);
  const preferred = entries.map((entry, i) => ((secondCounts.get(second[i] as string) ?? 0) > 1 ? plainLabel(entry, [entry.distinct, String(i + 1)]) : (second[i] as string)));
  // A label made unique by the passes above can still equal one another entry had all along (a peer named
  // `laptop_KEY1aaaa_1` beside two `laptop`s): the later one counts on until it is free.
  const wanted = new Set(preferred);
  const taken = new Set<string>();
  return preferred.map((text, i) => {
    let out = text;
    for (let n = 2; taken.has(out); n++) {
      const candidate = plainLabel(entries[i] as Entry, [(entries[i] as Entry).distinct, String(i + 1), String(n)]);
      if (!wanted.has(candidate)) out = candidate;
    }
    taken.add(out);
    return out;
  });
}

/**
 * A ratio as a perfdata percentage: to a thousandth of a percent, never written as 0 when it is not (a
 * ping_loss_critical of 0.0004 rounded to `@0:` made 0 % loss critical in every grapher), never in exponent form.
 */
export function percentOf(ratio: number): string {
  const percent = ratio * 100;
  const fixed = Number(percent.toFixed(3));
  return String(fixed === 0 && percent > 0 ? 0.001 : fixed);
}

/**
 * Which of the healthy peers' perfdata goes first when it cannot all go (the unhealthy go before all of them, the
 * ping targets before those): the nearest to (or past) their bound. A healthy peer without a handshake is one in
 * its grace after a restart (never_since_boot), due within its bound: ranked as at it, not with the unhealthy, whose
 * perfdata a hub's reboot pushed out with hundreds of such branches (found by review).
 */
function urgency(age: number | null, bound: number | null): number {
  if (bound === null || bound <= 0) return 0;
  return age === null ? 1 : age / bound;
}

/**
 * Whether the tunnel probe, not the handshake's age against its bound, decided the peer's state: blocked (every
 * ping lost with a fresh handshake), up with some pings lost, or up on an answered probe past its bound. Its age
 * is still graphed, but the bound is no threshold of it: a blocked peer sat inside its thresholds while CRITICAL,
 * and an answered one far past them while OK (found by review).
 */
function decidedByProbe(peer: PeerHealth): boolean {
  if (peer.reason === 'probe_failed' || peer.reason === 'probe_partial') return true;
  const age = peer.handshakeAgeSeconds;
  const bound = peer.handshakeBoundSeconds;
  if (age === null || bound === null) return false;
  // Up on an answered probe past the bound; or down on an unanswered one inside it (no session, and the probe's
  // pings started no handshake that answered).
  return (peer.probe === 'ok' && peer.state === 'up' && age > bound) || (peer.probe === 'failed' && peer.state === 'down' && age <= bound);
}

function perfdata(evaluations: readonly RouterEvaluation[], routers: readonly RouterConfig[]): PerfEntry[] {
  const entries: Entry[] = [];
  for (const { health } of evaluations) {
    const router = routers.find((candidate) => candidate.name === health.name);
    const lossCritical = router === undefined ? '' : percentOf(router.health.pingLossCritical);
    for (const peer of health.peers) {
      if (!peer.judged) continue;
      const name = peer.name !== '' ? peer.name : peer.publicKey.slice(0, 8);
      // U is the guidelines' "undetermined": a peer that never shook hands has no age.
      const value = peer.handshakeAgeSeconds === null ? 'U' : `${peer.handshakeAgeSeconds}s`;
      // The critical threshold is the peer's own bound (keepalive or handshake_stale_after), which an age above
      // it crosses (a plain range: outside 0…bound); none for idle peers.
      entries.push({
        parts: [health.name, peer.interface, name],
        distinct: peer.publicKey.slice(0, 8),
        measure: 'handshake_age',
        data: `${value};;${decidedByProbe(peer) ? '' : (peer.handshakeBoundSeconds ?? '')};0`,
        // What is wrong goes first when not all can go: an unhealthy peer before any healthy one.
        rank: peer.healthy ? urgency(peer.handshakeAgeSeconds, peer.handshakeBoundSeconds) : Number.MAX_VALUE,
      });
    }
    for (const ping of health.pings) {
      if (ping.lossRatio !== null) {
        // Loss at or above the critical ratio is critical: the range `@50:` (inside 50…∞), where a plain `50`
        // would alert only above 50; any loss warns (outside 0…0).
        const critical = lossCritical === '' ? '' : `@${lossCritical}:`;
        entries.push({ parts: [health.name, ping.name], distinct: ping.target, measure: 'loss', data: `${percentOf(ping.lossRatio)}%;0;${critical};0;100`, rank: Number.POSITIVE_INFINITY });
      }
      if (ping.rttSeconds.avg !== null) {
        entries.push({ parts: [health.name, ping.name], distinct: ping.target, measure: 'rtt', data: `${Number((ping.rttSeconds.avg * 1000).toFixed(3))}ms;;;0`, rank: Number.POSITIVE_INFINITY });
      }
    }
  }
  // Labels from every entry, whichever fit: a peer's label does not change with how many others there are.
  const labels = uniqueLabels(entries);
  return entries.map((entry, i) => ({ text: `${labels[i] as string}=${entry.data}`, rank: entry.rank }));
}
