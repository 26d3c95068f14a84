/**
 * Family metadata lines (`# HELP`, `# TYPE`, `# UNIT`) per exposition format. The two formats differ in more
 * than the content type, and a scraper that negotiated OpenMetrics holds us to its rules:
 *
 * - OpenMetrics names a family without the suffix its samples carry: a counter `foo` has samples `foo_total`,
 *   an info family `foo` has samples `foo_info`. Text 0.0.4 names the family after its samples and has no
 *   info type, so info families are gauges there.
 * - OpenMetrics states the unit in `# UNIT` when the family name ends in one; text 0.0.4 has no such line.
 * - OpenMetrics HELP is an escaped string like a label value (`\\`, `\n` and `\"`); text 0.0.4 HELP escapes
 *   only `\\` and `\n` and would show `\"` to users literally.
 *
 * The metadata order in OpenMetrics is the one its specification recommends: TYPE, UNIT, HELP.
 */
import type { ExpositionFormat } from './negotiate.js';
import { escapeHelp } from './text.js';

/** Family types we write: ours (gauge, counter, info) and prom-client's (histogram, summary). */
export type MetadataType = 'gauge' | 'counter' | 'info' | 'histogram' | 'summary';

/**
 * Units a family name may end in, longest first so that `_bytes_per_second` is not read as `_second`.
 * The OpenMetrics base units, plus hertz and rates of bytes, which this exporter serves.
 */
export const UNITS = [
  'bytes_per_second',
  'seconds',
  'bytes',
  'ratio',
  'hertz',
  'celsius',
  'volts',
  'amperes',
  'watts',
  'joules',
  'grams',
  'meters',
] as const;

export type Unit = (typeof UNITS)[number];

/** The suffix samples carry beyond the OpenMetrics family name, by type. */
const SAMPLE_SUFFIX: Partial<Record<MetadataType, string>> = { counter: '_total', info: '_info' };

/** The OpenMetrics family name of samples named `sampleName` (what text 0.0.4 calls the family). */
export function openMetricsFamilyName(sampleName: string, type: MetadataType): string {
  const suffix = SAMPLE_SUFFIX[type];
  return suffix !== undefined && sampleName.endsWith(suffix) ? sampleName.slice(0, -suffix.length) : sampleName;
}

/**
 * The unit an OpenMetrics family name ends in, or '' for none. Info families have no unit by definition
 * (the specification requires an empty one).
 */
export function unitOf(familyName: string, type: MetadataType): Unit | '' {
  if (type === 'info') return '';
  return UNITS.find((unit) => familyName.endsWith(`_${unit}`)) ?? '';
}

/** HELP text escaping of OpenMetrics: backslash, line feed and double quote. */
export function escapeOpenMetricsHelp(help: string): string {
  return escapeHelp(help).replace(/"/g, '\\"');
}

/**
 * The metadata lines of one family, each ending in a line feed. `sampleName` is the name its samples carry
 * (`foo_total` for a counter, `foo_info` for an info family): the text 0.0.4 family name.
 */
export function metadataLines(sampleName: string, type: MetadataType, help: string, format: ExpositionFormat): string {
  if (format === 'text') {
    return `# HELP ${sampleName} ${escapeHelp(help)}\n# TYPE ${sampleName} ${type === 'info' ? 'gauge' : type}\n`;
  }
  const name = openMetricsFamilyName(sampleName, type);
  const unit = unitOf(name, type);
  return `# TYPE ${name} ${type}\n${unit === '' ? '' : `# UNIT ${name} ${unit}\n`}# HELP ${name} ${escapeOpenMetricsHelp(help)}\n`;
}

const PROM_CLIENT_TYPES = new Set<string>(['gauge', 'counter', 'histogram', 'summary']);

/**
 * prom-client's OpenMetrics output with its metadata made exact: it writes no `# UNIT`, types `*_info`
 * gauges (build and Node.js version) as gauges rather than info families, and escapes HELP as text 0.0.4
 * does. Each family's `# HELP` + `# TYPE` pair is rewritten by the same code as the router families';
 * sample lines pass through unchanged.
 */
export function openMetricsMetadata(text: string): string {
  const out: string[] = [];
  let help: { name: string; text: string } | undefined;
  for (const line of text.split('\n')) {
    const helpLine = /^# HELP (\S+) (.*)$/.exec(line);
    if (helpLine !== null) {
      // prom-client escapes backslash and line feed only; undo that, metadataLines escapes for OpenMetrics.
      help = { name: helpLine[1] ?? '', text: (helpLine[2] ?? '').replace(/\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : '\\')) };
      continue;
    }
    const typeLine = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (typeLine !== null) {
      const [, family = '', promType = ''] = typeLine;
      if (!PROM_CLIENT_TYPES.has(promType)) {
        // Not one prom-client writes today: left as it came rather than guessed at.
        if (help !== undefined) out.push(`# HELP ${help.name} ${escapeOpenMetricsHelp(help.text)}`);
        out.push(line);
        help = undefined;
        continue;
      }
      const type: MetadataType = promType === 'gauge' && family.endsWith('_info') ? 'info' : (promType as MetadataType);
      // prom-client names counter families without _total in OpenMetrics; metadataLines wants the sample name.
      const sampleName = type === 'counter' ? `${family}_total` : family;
      out.push(metadataLines(sampleName, type, help?.name === family ? help.text : '', 'openmetrics').slice(0, -1));
      help = undefined;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
