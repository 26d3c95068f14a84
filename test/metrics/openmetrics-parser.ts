/**
 * A strict, test-only parser of OpenMetrics 1.0 text (the ABNF and the "Text format" rules of the
 * specification). No npm package parses OpenMetrics strictly (the one Prometheus text parser on npm knows
 * neither UNIT, info nor `# EOF`), so this one is written to the specification, and its own tests
 * (openmetrics-parser.test.ts) show it rejects each violation it checks:
 *
 * - UTF-8 without BOM, LF line endings, no empty or comment lines, `# EOF` last (nothing after it);
 * - metadata: TYPE/UNIT/HELP at most once each per family, before its samples; known types; a non-empty unit
 *   is a suffix `_<unit>` of the family name; info and stateset families have no unit; HELP and label values
 *   are escaped strings (a raw `"`, or a `\` not starting `\\`, `\n` or `\"`, is an error — the ABNF allows
 *   `\` before other characters but the specification says it SHOULD NOT be used, and we never write it);
 * - families contiguous and unique, named without a leading underscore, and no two families whose sample
 *   names could clash (a gauge `foo_total` beside a counter `foo`);
 * - sample names per type: counter `_total`/`_created`, info `_info`, gauge/unknown/stateset bare, histogram
 *   `_bucket`/`_count`/`_sum`/`_created`, gaugehistogram `_bucket`/`_gcount`/`_gsum`, summary bare/`_count`/
 *   `_sum`/`_created`;
 * - values: the ABNF's number forms; counter totals non-negative and not NaN; info values exactly 1;
 *   histogram buckets with an `le`, in increasing order, ending at `+Inf`, integer counts, `_count` equal to
 *   the `+Inf` bucket;
 * - metrics (label sets) not interleaved within a family, no duplicate series, label names unique in a set
 *   and without a leading underscore; exemplars only on counter totals and histogram buckets.
 */

export interface OmSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  line: number;
}

export interface OmFamily {
  name: string;
  /** 'unknown' when no TYPE line was given. */
  type: string;
  unit: string;
  help: string | undefined;
  samples: OmSample[];
}

export class OpenMetricsError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const TYPES = new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown']);
const SUFFIXES: Record<string, readonly string[]> = {
  counter: ['_total', '_created'],
  gauge: [''],
  unknown: [''],
  stateset: [''],
  info: ['_info'],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  summary: ['', '_count', '_sum', '_created'],
};
const METRIC_NAME = /^[A-Za-z_:][A-Za-z0-9_:]*$/;
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UNIT = /^[A-Za-z0-9_:]*$/;
/** realnumber of the ABNF; "e" is case-insensitive there like every quoted ABNF string. */
const REAL = /^[+-]?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\d*\.\d+(?:[eE][+-]?\d+)?)$/;
const SPECIAL = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

interface Cursor {
  text: string;
  at: number;
  line: number;
}

function fail(line: number, reason: string): never {
  throw new OpenMetricsError(line, reason);
}

/** An escaped-string up to (not including) `end` (a `"`) or to the end of the text when `end` is undefined. */
function readEscaped(c: Cursor, what: string, end: '"' | undefined): string {
  let out = '';
  for (;;) {
    const char = c.text[c.at];
    if (char === undefined) {
      if (end === undefined) return out;
      fail(c.line, `${what}: unterminated string`);
    }
    if (char === end) return out;
    if (char === '"') fail(c.line, `${what}: unescaped double quote`);
    if (char === '\\') {
      const next = c.text[c.at + 1];
      if (next === '\\') out += '\\';
      else if (next === 'n') out += '\n';
      else if (next === '"') out += '"';
      else fail(c.line, `${what}: undefined escape \\${next ?? ''}`);
      c.at += 2;
      continue;
    }
    out += char;
    c.at++;
  }
}

function readNumber(token: string, line: number, what: string): number {
  if (REAL.test(token)) return Number(token);
  if (!SPECIAL.test(token)) fail(line, `${what}: not a number: ${JSON.stringify(token)}`);
  const lower = token.toLowerCase();
  if (lower === 'nan') return NaN;
  return lower.startsWith('-') ? -Infinity : Infinity;
}

/** `{a="x",b="y"}` at c.at (the `{`), leaving c.at after the `}`. */
function readLabels(c: Cursor, what: string): Record<string, string> {
  const labels: Record<string, string> = {};
  c.at++;
  if (c.text[c.at] === '}') {
    c.at++;
    return labels;
  }
  for (;;) {
    const eq = c.text.indexOf('=', c.at);
    if (eq < 0) fail(c.line, `${what}: label without "="`);
    const name = c.text.slice(c.at, eq);
    if (!LABEL_NAME.test(name)) fail(c.line, `${what}: invalid label name ${JSON.stringify(name)}`);
    if (name.startsWith('_')) fail(c.line, `${what}: label name ${name} is reserved (leading underscore)`);
    if (Object.hasOwn(labels, name)) fail(c.line, `${what}: label ${name} repeated`);
    if (c.text[eq + 1] !== '"') fail(c.line, `${what}: label ${name}: value not quoted`);
    c.at = eq + 2;
    labels[name] = readEscaped(c, `label ${name}`, '"');
    c.at++;
    const next = c.text[c.at];
    c.at++;
    if (next === '}') return labels;
    if (next !== ',') fail(c.line, `${what}: expected "," or "}" after label ${name}`);
    if (c.text[c.at] === '}') fail(c.line, `${what}: trailing comma in labels`);
  }
}

/** The family a sample name belongs to, given the current family; undefined when it starts a new one. */
function suffixIn(family: OmFamily, sampleName: string): string | undefined {
  for (const suffix of SUFFIXES[family.type] ?? []) if (sampleName === family.name + suffix) return suffix;
  return undefined;
}

class FamilyChecks {
  /** Label sets already finished in this family (metrics must not interleave). */
  readonly #doneMetrics = new Set<string>();
  #currentMetric: string | undefined;
  readonly #series = new Set<string>();
  /** Histogram state of the current metric. */
  #lastLe = -Infinity;
  #infBucket: number | undefined;

  constructor(readonly family: OmFamily) {}

  sample(sample: OmSample, suffix: string, exemplar: boolean): void {
    const { family } = this;
    const { line, labels, value } = sample;
    const sorted = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const seriesKey = `${sample.name}${JSON.stringify(sorted)}`;
    if (this.#series.has(seriesKey)) fail(line, `duplicate series ${sample.name}${JSON.stringify(Object.fromEntries(sorted))}`);
    this.#series.add(seriesKey);
    const pointLabel = family.type === 'histogram' || family.type === 'gaugehistogram' ? 'le' : family.type === 'summary' ? 'quantile' : undefined;
    const metricKey = JSON.stringify(sorted.filter(([name]) => name !== pointLabel));
    if (metricKey !== this.#currentMetric) {
      if (this.#doneMetrics.has(metricKey)) fail(line, `metric ${metricKey} of ${family.name} interleaved with another`);
      if (this.#currentMetric !== undefined) {
        this.#endMetric(line);
        this.#doneMetrics.add(this.#currentMetric);
      }
      this.#currentMetric = metricKey;
      this.#lastLe = -Infinity;
      this.#infBucket = undefined;
    }
    if (exemplar && !((family.type === 'counter' && suffix === '_total') || suffix === '_bucket')) {
      fail(line, `exemplar on ${sample.name}: only counter totals and histogram buckets may have one`);
    }
    switch (family.type) {
      case 'counter':
        if (Number.isNaN(value) || value < 0) fail(line, `counter ${sample.name} must be a non-negative number, not ${value}`);
        break;
      case 'info':
        if (value !== 1) fail(line, `info ${sample.name} must have the value 1, not ${value}`);
        break;
      case 'stateset':
        if (value !== 0 && value !== 1) fail(line, `stateset ${sample.name} must be 0 or 1`);
        if (!Object.hasOwn(labels, family.name)) fail(line, `stateset ${sample.name} without its ${family.name} label`);
        break;
      case 'histogram':
      case 'gaugehistogram':
        this.#histogram(sample, suffix);
        break;
      case 'summary':
        if (suffix === '' && !Object.hasOwn(labels, 'quantile')) fail(line, `summary ${sample.name} without quantile`);
        if ((suffix === '_count' || suffix === '_sum') && (Number.isNaN(value) || value < 0)) fail(line, `summary ${sample.name} must be non-negative`);
        break;
    }
  }

  #histogram(sample: OmSample, suffix: string): void {
    const { line, labels, value } = sample;
    if (suffix === '_bucket') {
      const le = labels['le'];
      if (le === undefined) fail(line, `bucket ${sample.name} without le`);
      const bound = readNumber(le, line, 'le');
      if (Number.isNaN(bound)) fail(line, 'le is NaN');
      if (bound <= this.#lastLe) fail(line, `buckets of ${sample.name} not in increasing order of le`);
      if (this.#infBucket !== undefined) fail(line, `bucket after the +Inf bucket`);
      if (!Number.isInteger(value) || value < 0) fail(line, `bucket value must be a non-negative integer, not ${value}`);
      this.#lastLe = bound;
      if (bound === Infinity) this.#infBucket = value;
    } else if (Object.hasOwn(labels, 'le')) {
      fail(line, `${sample.name} must not have an le label`);
    } else if (suffix === '_count' || suffix === '_gcount') {
      if (this.#infBucket === undefined) fail(line, `${sample.name} before the +Inf bucket`);
      if (value !== this.#infBucket) fail(line, `${sample.name} ${value} differs from the +Inf bucket ${this.#infBucket}`);
    } else if (suffix === '_sum' && Number.isNaN(value)) {
      fail(line, `${sample.name} is NaN`);
    }
  }

  #endMetric(line: number): void {
    if ((this.family.type === 'histogram' || this.family.type === 'gaugehistogram') && this.#infBucket === undefined) {
      fail(line, `histogram ${this.family.name} metric without a +Inf bucket`);
    }
  }

  end(line: number): void {
    if (this.#currentMetric !== undefined) this.#endMetric(line);
  }
}

/** Every sample name a family may produce: two families must not share one. */
function sampleNamesOf(family: OmFamily): string[] {
  return (SUFFIXES[family.type] ?? ['']).map((suffix) => family.name + suffix);
}

export function parseOpenMetrics(body: string | Buffer): OmFamily[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) fail(1, 'byte order mark');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    fail(0, 'not valid UTF-8');
  }
  if (text.includes('\r')) fail(text.slice(0, text.indexOf('\r')).split('\n').length, 'carriage return');
  const lines = text.split('\n');
  // `# EOF` may or may not be followed by a final line feed; nothing else may follow it.
  if (lines[lines.length - 1] === '') lines.pop();
  const families: OmFamily[] = [];
  const names = new Set<string>();
  const sampleNames = new Map<string, string>();
  let family: OmFamily | undefined;
  let checks: FamilyChecks | undefined;
  const seen = new Set<string>();
  let eof = false;

  const open = (name: string, type: string, line: number): void => {
    if (name.startsWith('_')) fail(line, `family name ${name} is reserved (leading underscore)`);
    if (names.has(name)) fail(line, `family ${name} appears twice (families must be contiguous and unique)`);
    checks?.end(line);
    family = { name, type, unit: '', help: undefined, samples: [] };
    checks = new FamilyChecks(family);
    families.push(family);
    names.add(name);
    seen.clear();
    registerSampleNames(line);
  };
  const registerSampleNames = (line: number): void => {
    if (family === undefined) return;
    for (const name of sampleNamesOf(family)) {
      const owner = sampleNames.get(name);
      if (owner !== undefined && owner !== family.name) fail(line, `family ${family.name} clashes with ${owner}: both could write ${name}`);
      sampleNames.set(name, family.name);
    }
  };

  lines.forEach((content, index) => {
    const line = index + 1;
    if (eof) fail(line, 'content after # EOF');
    if (content === '# EOF') {
      eof = true;
      return;
    }
    if (content === '') fail(line, 'empty line');
    if (content.startsWith('#')) {
      const meta = /^# (TYPE|UNIT|HELP) ([^ ]+)(?: (.*))?$/.exec(content);
      if (meta === null) fail(line, 'a line starting with # that is neither metadata nor # EOF');
      const [, kind = '', name = '', rest] = meta;
      if (!METRIC_NAME.test(name)) fail(line, `invalid metric name ${JSON.stringify(name)}`);
      if (rest === undefined) fail(line, `# ${kind} ${name} without a value`);
      if (family?.name !== name) open(name, 'unknown', line);
      const current = family as OmFamily;
      if (current.samples.length > 0) fail(line, `# ${kind} for ${name} after its samples`);
      if (seen.has(kind)) fail(line, `second # ${kind} for ${name}`);
      seen.add(kind);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) fail(line, `unknown type ${JSON.stringify(rest)}`);
        current.type = rest;
        if (rest !== 'unknown' && current.unit !== '' && (rest === 'info' || rest === 'stateset')) fail(line, `${rest} family ${name} must not have a unit`);
        registerSampleNames(line);
      } else if (kind === 'UNIT') {
        if (!UNIT.test(rest)) fail(line, `invalid unit ${JSON.stringify(rest)}`);
        if (rest !== '' && !name.endsWith(`_${rest}`)) fail(line, `unit ${rest} is not a suffix of ${name}`);
        if (rest !== '' && (current.type === 'info' || current.type === 'stateset')) fail(line, `${current.type} family ${name} must not have a unit`);
        current.unit = rest;
      } else {
        current.help = readEscaped({ text: rest, at: 0, line }, 'HELP', undefined);
      }
      return;
    }
    const c: Cursor = { text: content, at: 0, line };
    const nameEnd = content.search(/[{ ]/);
    if (nameEnd <= 0) fail(line, 'sample without a value');
    const name = content.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) fail(line, `invalid metric name ${JSON.stringify(name)}`);
    c.at = nameEnd;
    const labels = content[nameEnd] === '{' ? readLabels(c, name) : {};
    if (content[c.at] !== ' ') fail(line, `${name}: expected one space before the value`);
    const [valueToken = '', ...rest] = content.slice(c.at + 1).split(' ');
    const value = readNumber(valueToken, line, name);
    let exemplar = false;
    if (rest.length > 0 && rest[0] !== '#') {
      const timestamp = rest.shift() ?? '';
      if (!REAL.test(timestamp)) fail(line, `${name}: invalid timestamp ${JSON.stringify(timestamp)}`);
    }
    if (rest.length > 0) {
      if (rest[0] !== '#') fail(line, `${name}: trailing content`);
      exemplar = true;
      const exemplarText = rest.slice(1).join(' ');
      if (!exemplarText.startsWith('{')) fail(line, `${name}: exemplar without labels`);
      const e: Cursor = { text: exemplarText, at: 0, line };
      const exemplarLabels = readLabels(e, `${name} exemplar`);
      const length = Object.entries(exemplarLabels).reduce((sum, [k, v]) => sum + [...k].length + [...v].length, 0);
      if (length > 128) fail(line, `${name}: exemplar labels longer than 128 characters`);
      const [, exemplarValue, exemplarTs, ...more] = exemplarText.slice(e.at).split(' ');
      readNumber(exemplarValue ?? '', line, `${name} exemplar`);
      if (exemplarTs !== undefined && !REAL.test(exemplarTs)) fail(line, `${name}: invalid exemplar timestamp`);
      if (more.length > 0) fail(line, `${name}: trailing content after the exemplar`);
    }
    let suffix = family === undefined ? undefined : suffixIn(family, name);
    if (suffix === undefined) {
      // A sample that cannot belong to the current family starts an untyped one (type unknown: no suffix).
      open(name, 'unknown', line);
      suffix = '';
    }
    const sample: OmSample = { name, labels, value, line };
    (checks as FamilyChecks).sample(sample, suffix, exemplar);
    (family as OmFamily).samples.push(sample);
  });
  if (!eof) fail(lines.length, 'missing # EOF');
  checks?.end(lines.length);
  return families;
}
