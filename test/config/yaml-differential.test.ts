/**
 * parseYaml checks duplicate keys, merge keys and aliases itself (the yaml package's own duplicate check is
 * quadratic: 11 s for 40,000 keys), so its checks are held to the package's on random block YAML of anchors,
 * aliases, merge keys and keys written alike: it never accepts what the package refuses, and what both accept
 * reads as the same value. It may refuse more, on purpose: a value containing itself (an alias inside its own
 * anchor), keys that read alike once loaded (`1` and `"1"`, `~` and `null`), and keys that are not plain text.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/yaml.js';

type YamlNode =
  | { kind: 'scalar'; text: string; anchor: string | undefined }
  | { kind: 'alias'; name: string }
  | { kind: 'map'; pairs: [string, YamlNode][]; anchor: string | undefined }
  | { kind: 'seq'; items: YamlNode[]; anchor: string | undefined };

const KEY = fc.constantFrom('a', 'b', 'c', 'd', '<<', '"a"', "'b'", '? a', '*n1 ', '&n2 a', '&n1 e', '1', '"1"', 'null', '~', 'true');
const SCALAR = fc.constantFrom('1', 'x', 'null', '~', 'true', '"s"', '[]', '{}', '[1, 2]', '{a: 1}', '*n1', '[*n2]', '{<<: *n3}');
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

/** Refusals of parseYaml's own, beyond the package's. */
const OWN_REFUSALS = /inside the anchor|keys must be unique|a key must be plain text/;

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
            expect(ours.problems[0]?.message, text).toMatch(OWN_REFUSALS);
            return;
          }
          bothAccepted++;
          expect(isDeepStrictEqual(ours.value, value), text).toBe(true);
        },
      ),
      { numRuns: 4000 },
    );
    // The property reached documents both read, not only refusals.
    expect(bothAccepted).toBeGreaterThan(200);
  });
});
