/**
 * Readers for the deployment kit tests: YAML files, the Dockerfile's instructions, and what the repository
 * itself defines as the user-facing surface: the metric names it serves (docs/metrics.md is generated from the
 * same registry), the CLI's usage text, and the config keys of the complete example in docs/configuration.md
 * (test/config/testdata/valid-full.yml). Nothing here reads outside the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../dashboards/shipped.js';
import { USAGE } from '../../src/cli/args.js';
import { SELF_METRICS } from '../../src/metrics/doc.js';
import { FAMILIES } from '../../src/metrics/families.js';

export { repoRoot };

export function read(path: string): string {
  return readFileSync(join(repoRoot, path), 'utf8');
}

/** The single YAML document of a repository file, as plain data. */
export function readYaml<T>(path: string): T {
  return parse(read(path)) as T;
}

/** Every document of a YAML file; throws on a syntax error. */
export function readYamlDocuments(path: string): unknown[] {
  return parseAllDocuments(read(path)).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as unknown;
  });
}

export interface DockerInstruction {
  /** Index of the build stage (the FROM it follows). */
  stage: number;
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions with line continuations joined and comments dropped. */
export function dockerInstructions(text: string): DockerInstruction[] {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const out: DockerInstruction[] = [];
  let stage = -1;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) throw new Error(`unreadable Dockerfile line: ${line}`);
    const keyword = match[1].toUpperCase();
    if (keyword === 'FROM') stage += 1;
    out.push({ stage, keyword, args: match[2].replace(/\s+/g, ' ') });
  }
  return out;
}

/** `key=value` or `key="value"` pairs of an ENV, LABEL or ARG instruction. */
export function keyValues(args: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const m of args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    const [, key = '', value = ''] = m;
    pairs.set(key, value.startsWith('"') ? (JSON.parse(value) as string) : value);
  }
  return pairs;
}

/** The CLI's own usage text (what `routeros-exporter --help` prints): its subcommands, flags and environment. */
export const usage = USAGE;

/** Every `routeros_*` metric name the exporter serves: the router families and its self-metrics. */
export function servedMetricNames(): Set<string> {
  return new Set([...FAMILIES.map((family) => family.name), ...SELF_METRICS.map((metric) => metric.name)]);
}

/** The port the exporter listens on in every shipped deployment. */
export const EXPORTER_PORT = 9731;

/** The complete config example of docs/configuration.md, which the config tests load (so it stays valid). */
export const FULL_CONFIG_EXAMPLE = 'test/config/testdata/valid-full.yml';

/**
 * Key paths (`routers[].ping[].count`) a config may use per the documented complete example: its own paths, the
 * password sources it names beside `password_file`, and every `defaults` key again on a router (the
 * documentation: "any router key except name and url").
 */
export function documentedConfigPaths(): Set<string> {
  const example = keyPaths(parse(read(FULL_CONFIG_EXAMPLE)));
  const defaults = [...example, 'defaults.password', 'defaults.password_env']
    .filter((path) => path.startsWith('defaults.'))
    .map((path) => path.slice('defaults.'.length));
  return new Set([...example, ...defaults.flatMap((key) => [`defaults.${key}`, `routers[].${key}`])]);
}

/** Paths to every scalar of a parsed YAML value; list indexes become `[]`. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keyPaths(item, `${prefix}[]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => keyPaths(item, prefix === '' ? key : `${prefix}.${key}`));
  }
  return [prefix];
}

/** Record names of the shipped recording rules, when prometheus/rules.yml exists. */
export function recordingRuleNames(): Set<string> {
  if (!existsSync(join(repoRoot, 'prometheus', 'rules.yml'))) return new Set();
  const doc = readYaml<{ groups?: { rules?: { record?: string }[] }[] }>('prometheus/rules.yml');
  return new Set((doc.groups ?? []).flatMap((g) => (g.rules ?? []).flatMap((r) => (r.record ? [r.record] : []))));
}
