/**
 * A strict parser of the Prometheus text format 0.0.4 and of OpenMetrics 1.0 text, stricter than Prometheus
 * itself: any deviation throws with the line number. Checks UTF-8, names, label syntax and escapes, values,
 * one TYPE/HELP per family before its samples, families not interleaved, no duplicate series, and `# EOF`.
 */

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** `name{labels}` with labels in written order, for lookups. */
  key: string;
}

export interface ParsedExposition {
  samples: ParsedSample[];
  types: Map<string, string>;
  /** value by `name{labels}`, labels in written order. */
  byKey: Map<string, number>;
}

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Go's ParseFloat, which both formats defer to: special values in any case (prom-client writes `Nan`). */
const FLOAT = /^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|nan|[+-]?inf(?:inity)?)$/i;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped', 'unknown', 'info', 'stateset', 'gaugehistogram']);
const SUFFIXES: Record<string, string[]> = {
  counter: ['_total', '_created'],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  summary: ['_sum', '_count', '_created', ''],
  info: ['_info'],
};

export class ExpositionError extends Error {}

/** `name{a="x",b="y"}` (values JSON-quoted), labels in the given order: the parser's lookup key. */
export function seriesKey(name: string, labels: Record<string, string>): string {
  return `${name}{${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
}

function fail(line: number, message: string): never {
  throw new ExpositionError(`line ${line}: ${message}`);
}

/** Reads `{a="x",b="y"}` starting at `start` (the `{`); returns the labels and the index after `}`. */
function readLabels(text: string, start: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0) fail(line, 'label without "="');
    const name = text.slice(i, eq);
    if (!LABEL.test(name) || name.startsWith('__')) fail(line, `invalid label name ${JSON.stringify(name)}`);
    if (Object.hasOwn(labels, name)) fail(line, `label ${name} repeated`);
    if (text[eq + 1] !== '"') fail(line, `label ${name}: value not quoted`);
    let value = '';
    let j = eq + 2;
    for (;; j++) {
      const char = text[j];
      if (char === undefined) fail(line, `label ${name}: unterminated value`);
      if (char === '"') break;
      if (char === '\\') {
        const next = text[++j];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else fail(line, `label ${name}: invalid escape \\${next ?? ''}`);
      } else {
        // eslint-disable-next-line no-control-regex
        if (/[\x00-\x1f\x7f]/.test(char)) fail(line, `label ${name}: raw control character U+${char.charCodeAt(0).toString(16)}`);
        value += char;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') fail(line, `label ${name}: expected "," or "}"`);
  }
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const [family, type] of types) {
    for (const suffix of SUFFIXES[type] ?? []) if (suffix !== '' && name === family + suffix) return family;
  }
  return undefined;
}

export function parseExposition(body: string | Buffer, format: 'text' | 'openmetrics' = 'text'): ParsedExposition {
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
  if (text.length > 0 && !text.endsWith('\n')) fail(0, 'does not end with a line feed');
  const lines = text.split('\n').slice(0, -1);
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const done = new Set<string>();
  const byKey = new Map<string, number>();
  const series = new Set<string>();
  const samples: ParsedSample[] = [];
  let current: string | undefined;
  let eof = false;
  const enter = (family: string, n: number): void => {
    if (family === current) return;
    if (done.has(family)) fail(n, `family ${family} interleaved with another`);
    if (current !== undefined) done.add(current);
    current = family;
  };
  lines.forEach((line, index) => {
    const n = index + 1;
    if (eof) fail(n, 'content after # EOF');
    if (line === '# EOF' && format === 'openmetrics') {
      eof = true;
      return;
    }
    if (line === '') {
      // The text format ignores empty lines (prom-client writes one after each family); OpenMetrics has none.
      if (format === 'openmetrics') fail(n, 'empty line');
      return;
    }
    const meta = /^# (HELP|TYPE|UNIT) (\S+)(?: (.*))?$/.exec(line);
    if (meta !== null) {
      const [, kind, name = '', rest = ''] = meta;
      if (!METRIC.test(name)) fail(n, `invalid metric name ${JSON.stringify(name)}`);
      enter(name, n);
      if (kind === 'TYPE') {
        if (types.has(name)) fail(n, `second TYPE for ${name}`);
        if (samples.some((sample) => familyOf(sample.name, new Map([[name, rest]])) === name)) fail(n, `TYPE for ${name} after its samples`);
        if (!TYPES.has(rest)) fail(n, `unknown type ${rest}`);
        if (format === 'openmetrics' && rest === 'counter' && name.endsWith('_total')) fail(n, 'OpenMetrics counter family named with _total');
        types.set(name, rest);
      } else if (kind === 'HELP') {
        if (helps.has(name)) fail(n, `second HELP for ${name}`);
        if (/\\(?![\\n"])/.test(rest)) fail(n, 'invalid escape in HELP');
        helps.add(name);
      }
      return;
    }
    if (line.startsWith('#')) {
      if (format === 'openmetrics') fail(n, 'comment line in OpenMetrics');
      return;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) fail(n, 'sample without value');
    const name = line.slice(0, nameEnd);
    if (!METRIC.test(name)) fail(n, `invalid metric name ${JSON.stringify(name)}`);
    let rest = nameEnd;
    let labels: Record<string, string> = {};
    if (line[nameEnd] === '{') ({ labels, end: rest } = readLabels(line, nameEnd, n));
    if (line[rest] !== ' ') fail(n, 'expected a space before the value');
    const [value = '', timestamp, extra] = line.slice(rest + 1).split(' ');
    if (!FLOAT.test(value)) fail(n, `invalid value ${JSON.stringify(value)}`);
    if (timestamp !== undefined && !/^-?\d+(\.\d+)?$/.test(timestamp)) fail(n, `invalid timestamp ${JSON.stringify(timestamp)}`);
    if (extra !== undefined) fail(n, 'trailing content after the timestamp');
    const family = familyOf(name, types) ?? (format === 'openmetrics' ? fail(n, `sample ${name} without TYPE`) : name);
    enter(family, n);
    const key = seriesKey(name, labels);
    const canonical = seriesKey(name, Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1))));
    if (series.has(canonical)) fail(n, `duplicate series ${canonical}`);
    series.add(canonical);
    const special = value.toLowerCase().replace(/inity$/, '');
    const parsed = special === 'nan' ? NaN : special === '+inf' || special === 'inf' ? Infinity : special === '-inf' ? -Infinity : Number(value);
    byKey.set(key, parsed);
    samples.push({ name, labels, value: parsed, key });
  });
  if (format === 'openmetrics' && !eof) fail(lines.length, 'missing # EOF');
  return { samples, types, byKey };
}
