/**
 * A small reader of the text exposition format, for the naive baseline: it is fed the very series the
 * exporter served, so both sides serve the same names, labels and values.
 */

export interface ParsedSeries {
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  help: string;
  labelNames: string[];
  series: ParsedSeries[];
}

export function parseExposition(text: string, keep: (name: string) => boolean): ParsedFamily[] {
  const families = new Map<string, ParsedFamily>();
  const familyOf = (name: string): ParsedFamily => {
    let family = families.get(name);
    if (family === undefined) {
      family = { name, help: '', labelNames: [], series: [] };
      families.set(name, family);
    }
    return family;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const space = rest.indexOf(' ');
      const name = rest.slice(0, space);
      if (keep(name)) familyOf(name).help = unescapeHelp(rest.slice(space + 1));
      continue;
    }
    if (line.startsWith('#')) continue;
    const { name, labels, value } = parseSample(line);
    if (!keep(name)) continue;
    const family = familyOf(name);
    for (const key of Object.keys(labels)) if (!family.labelNames.includes(key)) family.labelNames.push(key);
    family.series.push({ labels, value });
  }
  return [...families.values()];
}

function parseSample(line: string): { name: string; labels: Record<string, string>; value: number } {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  const labels: Record<string, string> = {};
  if (brace === -1 || brace > space) return { name: line.slice(0, space), labels, value: parseValue(line.slice(space + 1)) };
  let i = brace + 1;
  while (line[i] !== '}') {
    const equals = line.indexOf('="', i);
    const key = line.slice(i, equals);
    let value = '';
    i = equals + 2;
    for (;;) {
      const char = line[i];
      if (char === undefined) throw new Error(`unterminated label value in ${line}`);
      if (char === '"') break;
      if (char === '\\') {
        const next = line[i + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        i += 2;
      } else {
        value += char;
        i += 1;
      }
    }
    labels[key] = value;
    i += 1;
    if (line[i] === ',') i += 1;
  }
  return { name: line.slice(0, brace), labels, value: parseValue(line.slice(i + 2)) };
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}
