/**
 * Readers for the deployment kit tests: YAML files, the Dockerfile's instructions, and the contract's metric
 * names, subcommands and config keys.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../dashboards/shipped.js';
import { servedContractNames } from '../../src/metrics/doc.js';

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

export const contractPath = join(repoRoot, '..', 'shared', 'CONTRACT.md');
export const contract = existsSync(contractPath) ? readFileSync(contractPath, 'utf8') : '';

/** Every backticked `routeros_*` name in the contract, as the exporter serves it (see docs/metrics.md). */
export function contractMetricNames(): Set<string> {
  return servedContractNames([...contract.matchAll(/`(routeros_[a-z0-9_]+)`/g)].map((m) => m[1] ?? ''));
}

/** The port the exporter listens on in every shipped deployment. */
export const EXPORTER_PORT = 9731;

/**
 * Key paths (`routers[].ping[].count`) a config may use per the contract: those of its example, the password
 * sources it names beside `password_file`, and every `defaults` key again on a router ("every key a router
 * may set").
 */
export function contractConfigPaths(): Set<string> {
  const block = /## Config file[^]*?```yaml\n([^]*?)```/.exec(contract)?.[1];
  if (block === undefined) throw new Error('CONTRACT.md has no config example');
  const example = keyPaths(parse(block));
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
