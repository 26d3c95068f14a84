/**
 * parseYaml checks duplicate keys, merge keys and aliases itself (the yaml package's own duplicate check is
 * quadratic: 11 s for 40,000 keys), so its checks are held to the package's on random block YAML of anchors,
 * aliases, merge keys and keys written alike, in block and flow style: it never accepts what the package refuses,
 * and what both accept reads as the same value. It refuses more on purpose (a value containing itself, keys that
 * read alike once loaded such as `1` and `"1"`, alias keys naming one, keys that are not plain text), and each
 * such refusal is checked against the package's own reading of the text with duplicates allowed: a refusal
 * without cause fails the property.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { isAlias, isMap, isScalar, isSeq, parseDocument, visit, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/yaml.js';

type YamlNode =
  | { kind: 'scalar'; text: string; anchor: string | undefined }
  | { kind: 'alias'; name: string }
  | { kind: 'map'; pairs: [string, YamlNode][]; anchor: string | undefined }
  | { kind: 'seq'; items: YamlNode[]; anchor: string | undefined };

const KEY = fc.constantFrom('a', 'b', 'c', 'd', '<<', '"a"', "'b'", '? a', '*n1 ', '&n2 a', '&n1 e', '1', '"1"', 'null', '~', 'true');
const SCALAR = fc.constantFrom(
  ...['1', 'x', 'null', '~', 'true', '"s"', '[]', '{}', '[1, 2]', '{a: 1}', '*n1', '[*n2]', '{<<: *n3}'],
  // Flow collections: duplicates, keys written alike, alias keys and merge lists inside them.
  ...['{a: 1, a: 2}', '{a: 1, "a": 2}', '{1: a, "1": b}', '{*n1 : 1}', '{&n1 a: 1, *n1 : 2}', '{<<: [*n1, *n2]}', '{<<: [*n1, *n2], a: 1}', '[*n1, &n1 a, *n1]'],
);
const ANCHOR = fc.option(fc.constantFrom('n1', 'n2', 'n3'), { nil: undefined, freq: 2 });

const NODE: fc.Memo<YamlNode> = fc.memo((depth) => {
  const leaves = [
    fc.record({ kind: fc.constant('scalar' as const), text: SCALAR, anchor: ANCHOR }),
    fc.record({ kind: fc.constant('alias' as const), name: fc.constantFrom('n1', 'n2', 'n3') }),
  ];
  if (depth <= 1) return fc.oneof(...leaves);
  return fc.oneof(
    ...leaves,
    fc.record({ kind: fc.constant('map' as const), pairs: fc.array(fc.tuple(KEY, NODE(depth - 1)), { minLength: 1, maxLength: 4 }), anchor: ANCHOR }),
    fc.record({ kind: fc.constant('seq' as const), items: fc.array(NODE(depth - 1), { minLength: 1, maxLength: 3 }), anchor: ANCHOR }),
  );
});

function render(node: YamlNode, indent: string): string {
  if (node.kind === 'scalar') return `${node.anchor === undefined ? '' : `&${node.anchor} `}${node.text}`;
  if (node.kind === 'alias') return `*${node.name}`;
  const anchor = node.anchor === undefined ? '' : `&${node.anchor}`;
  const lines =
    node.kind === 'map'
      ? node.pairs.map(([key, value]) => `${indent}${key === '? a' ? `? a\n${indent}:` : `${key}:`} ${render(value, `${indent}  `)}`)
      : node.items.map((value) => `${indent}- ${render(value, `${indent}  `)}`);
  return `${anchor}\n${lines.join('\n')}`;
}

/** The document's keys as the values they stand for (an alias key as the node it names). */
function keysOf(doc: Document): { keys: unknown[]; inMap: unknown[][] } {
  const all: unknown[] = [];
  const inMap: unknown[][] = [];
  visit(doc, {
    Map(_, map) {
      const keys = map.items.map((pair) => (isAlias(pair.key) ? pair.key.resolve(doc) : pair.key));
      all.push(...keys);
      inMap.push(keys);
    },
  });
  return { keys: all, inMap };
}

/** Whether a value holds itself. */
function cyclic(value: unknown, open = new Set<unknown>()): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (open.has(value)) return true;
  open.add(value);
  const found = Object.values(value).some((child) => cyclic(child, open));
  open.delete(value);
  return found;
}

/**
 * Whether a refusal of parseYaml's own (beyond the package's) is due, judged on the package's reading of the same
 * text (duplicates not refused): keys that read alike in one mapping, once loaded (scalars as toJS writes them
 * as keys: null as '', the rest as text; merge keys aside); a key that is a list or mapping; a value holding itself.
 */
/**
 * Whether an alias stands inside the node it names: YAML's alias names the latest node before it with that anchor,
 * and a node's anchor comes before its content (the package may read such a value otherwise).
 */
function aliasInsideItsAnchor(doc: Document): boolean {
  const anchored: { name: string; start: number; end: number }[] = [];
  const aliases: { name: string; at: number }[] = [];
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) aliases.push({ name: node.source, at: node.range?.[0] ?? 0 });
      else if (node.anchor !== undefined) anchored.push({ name: node.anchor, start: node.range?.[0] ?? 0, end: node.range?.[1] ?? 0 });
    },
  });
  return aliases.some(({ name, at }) => {
    const named = anchored.filter((node) => node.name === name && node.start < at);
    // At one start (a mapping's range begins at its first key, `&a\n&b k:`), the node visited later (the key) holds
    // the anchor written later.
    const target = named.reduce<(typeof named)[number] | undefined>((latest, node) => (latest === undefined || node.start >= latest.start ? node : latest), undefined);
    return target !== undefined && at < target.end;
  });
}

function ownRefusalsDue(text: string, value: unknown): { complexKey: boolean; duplicate: boolean; cycle: boolean } {
  const doc = parseDocument(text, { merge: true, uniqueKeys: false, schema: 'core', logLevel: 'silent' });
  const { keys, inMap } = keysOf(doc);
  const duplicate = inMap.some((mapKeys) => {
    const written = mapKeys.filter((key) => isScalar(key) && typeof key.value !== 'symbol').map((key) => (isScalar(key) && key.value !== null ? String(key.value) : ''));
    return new Set(written).size < written.length;
  });
  return { complexKey: keys.some((key) => isMap(key) || isSeq(key)), duplicate, cycle: cyclic(value) || aliasInsideItsAnchor(doc) };
}

/** A refusal of its own is due when the text has one of those causes (its first problem may name another). */
function ownRefusalDue(text: string, message: string, value: unknown): boolean {
  const due = ownRefusalsDue(text, value);
  return /a key must be plain text|keys must be unique|inside the anchor/.test(message) && (due.complexKey || due.duplicate || due.cycle);
}

describe('parseYaml against the yaml package', () => {
  it('never accepts YAML the package refuses (duplicate keys included), and reads what both accept alike (generator)', () => {
    let bothAccepted = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(KEY, NODE(4)), { minLength: 1, maxLength: 5 }),
        (pairs) => {
          const text = `${render({ kind: 'map', pairs, anchor: undefined }, '').replace(/^\n/, '')}\n`;
          const reference = parseDocument(text, { merge: true, uniqueKeys: true, schema: 'core', logLevel: 'silent' });
          let accepted = reference.errors.length === 0;
          let value: unknown;
          if (accepted) {
            try {
              value = reference.toJS({ maxAliasCount: 100 });
            } catch {
              accepted = false;
            }
          }
          const ours = parseYaml(text);
          if (!accepted) {
            expect(ours.problems.length, text).toBeGreaterThan(0);
            return;
          }
          if (ours.problems.length > 0) {
            expect(ownRefusalDue(text, ours.problems[0]?.message ?? '', value), `${text} => ${ours.problems[0]?.message}`).toBe(true);
            return;
          }
          bothAccepted++;
          expect(isDeepStrictEqual(ours.value, value), text).toBe(true);
          // Nor does it let through what it refuses of its own.
          expect(ownRefusalsDue(text, value), text).toEqual({ complexKey: false, duplicate: false, cycle: false });
        },
      ),
      { numRuns: Number(process.env['YAML_DIFF_RUNS'] ?? 5000) },
    );
    // The property reached documents both read, not only refusals.
    expect(bothAccepted).toBeGreaterThan(100);
  });
});
