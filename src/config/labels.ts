/**
 * `labels:`: extra labels (site, rack, role, …) put on every series of a router, right after `router`
 * (metrics/family.ts routerLabel). Names are checked here, once, so the exposition never has to: a valid
 * Prometheus label name that OpenMetrics and promtool's lint accept too (no leading "_", no camelCase), and
 * none the exporter writes itself — a router label called `interface` would make every interface series
 * carry the name twice, which Prometheus refuses.
 */
import { EXPORTER_LABELS } from '../metrics/families.js';
import { REPORTED } from './fields.js';
import type { Located } from './slot.js';
import { joinPath, type Problems } from './problems.js';
import { quoteValue } from './value-error.js';

/** One layer's labels, each with where it was set; merged key by key, the router's over the defaults'. */
export type LabelsLayer = Partial<Record<string, Located<string> | null>>;

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** What promtool's lint calls camelCase: a lower-case letter followed by an upper-case one. */
const CAMEL_CASE = /[a-z][A-Z]/;

function snakeCase(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Set by Prometheus on every scraped series: a label of ours by that name would arrive as `exported_<name>`. */
const TARGET_LABELS = ['job', 'instance'];
/**
 * The labels of a histogram's buckets and a summary's quantiles: on every series of a router they make each family
 * one that `promtool check metrics` flags and `histogram_quantile` would read as buckets (found by the exposition's
 * generator).
 */
const BUCKET_LABELS = ['le', 'quantile'];

/** Why `name` cannot be a router label, or undefined when it can. */
export function labelNameProblem(name: string): string | undefined {
  if (!LABEL_NAME.test(name)) return `${quoteValue(name)} is not a Prometheus label name: use letters, digits and "_", not starting with a digit`;
  if (name.startsWith('__')) return `${quoteValue(name)} starts with "__", which Prometheus reserves for its own labels`;
  // Prometheus would take `_site`, but OpenMetrics reserves every name starting with "_" and strict parsers refuse it.
  if (name.startsWith('_')) return `${quoteValue(name)} starts with "_", which OpenMetrics reserves; start with a letter`;
  // `promtool check metrics` flags camelCase label names; the exposition is kept lint-clean.
  if (CAMEL_CASE.test(name)) return `${quoteValue(name)} is camelCase, which promtool check metrics flags; write it in snake_case (${quoteValue(snakeCase(name))})`;
  const family = EXPORTER_LABELS.get(name);
  if (family !== undefined) return `${quoteValue(name)} is a label the exporter sets itself (on ${family}); choose another name`;
  if (BUCKET_LABELS.includes(name)) return `${quoteValue(name)} is the label of a histogram's buckets or a summary's quantiles, which Prometheus and promtool read as such; choose another name`;
  if (TARGET_LABELS.includes(name)) return `${quoteValue(name)} is set by Prometheus on every scraped series; yours would arrive renamed to exported_${name}`;
  return undefined;
}

/**
 * A label value: text, or a plain number or boolean (YAML reads `rack: 12` as a number; Prometheus' own
 * `labels:` take it as "12"). Any UTF-8 text is allowed: the exposition escapes it.
 */
function readLabelValue(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === REPORTED) return undefined;
  if (typeof value === 'string') {
    if (value !== '') return value;
    // Prometheus treats an empty label as no label: the series would lose it without a word.
    problems.add(path, 'must not be empty (an empty label is no label in Prometheus; remove the key instead)');
    return undefined;
  }
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  problems.add(path, `must be text (quote it in YAML), not ${describe(value)}`);
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : quoteValue(String(value));
}

/** The `labels` mapping of one layer; every bad name or value is reported at its own path. */
export function readLabels(value: unknown, path: string, problems: Problems): LabelsLayer {
  if (value === REPORTED || value === null) return {};
  // Any key may be a label: names are checked one by one below, each with its reason (readMap would call
  // them all unknown keys).
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.add(path, `must be a mapping of label names to values, like {site: ams}, not ${describe(value)}`);
    return {};
  }
  const layer: LabelsLayer = {};
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const at = joinPath(path, name);
    const nameProblem = labelNameProblem(name);
    if (nameProblem !== undefined) {
      problems.add(at, nameProblem);
      layer[name] = null;
      continue;
    }
    const text = readLabelValue(raw, at, problems);
    layer[name] = text === undefined ? null : { value: text, path: at };
  }
  return layer;
}

/** The router's labels over the defaults', key by key (a router cannot remove a default label, only change it). */
export function mergeLabels(defaults: LabelsLayer, router: LabelsLayer): LabelsLayer {
  return { ...defaults, ...router };
}

/** The labels a router's series carry; undefined when one of them was invalid (already reported). */
export function resolveLabels(layer: LabelsLayer): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  for (const [name, slot] of Object.entries(layer)) {
    if (slot === null) return undefined;
    if (slot !== undefined) labels[name] = slot.value;
  }
  return labels;
}
