import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { arraysByHolder, type HeapSnapshot } from '../../bench/heap-summary.js';

const dir = mkdtempSync(join(tmpdir(), 'heap-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real V8 heap snapshot of a small Node.js process that keeps `count` holders, each with a Map and an array. */
function snapshotOf(count: number): HeapSnapshot {
  const file = join(dir, `holders-${String(count)}.heapsnapshot`);
  const program = [
    'class RouterHolder { constructor(i) { this.memory = new Map([[`k${i}`, i]]); this.list = [i, i + 1, i + 2]; } }',
    `globalThis.kept = Array.from({ length: ${String(count)} }, (_, i) => new RouterHolder(i));`,
    `require('node:v8').writeHeapSnapshot(${JSON.stringify(file)});`,
  ].join('\n');
  execFileSync(process.execPath, ['-e', program], { stdio: 'ignore' });
  return JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
}

describe('heap summary: V8 arrays by holder', () => {
  it('names a Map table and an elements store by the object that keeps them, counted once per holder', () => {
    const held = arraysByHolder(snapshotOf(300));
    const entry = (key: string): { count: number; bytes: number } | undefined =>
      [...held].find(([name]) => name === key)?.[1];
    const tables = entry('object RouterHolder .memory -> object Map .table');
    const elements = entry('object RouterHolder .list -> object Array .elements');
    expect(tables?.count).toBe(300);
    expect(elements?.count).toBe(300);
    expect(tables?.bytes).toBeGreaterThan(300 * 16);
  });

  it('takes the first strong holder: a weak or shortcut edge holds nothing, and an array two objects hold is counted once', () => {
    // V8's layout: a node is [type, name, id, self_size, edge_count], an edge [type, name_or_index, to_node], where
    // to_node is the target's offset in `nodes`. Nodes: 0 the root (synthetic), 1 object A, 2 object B, 3 array X,
    // 4 array Y. A holds X weakly and by a shortcut, then Y as `first`; B holds X as `items` and Y as `second`.
    const nodeTypes = ['synthetic', 'object', 'array'];
    const edgeTypes = ['property', 'weak', 'shortcut'];
    const at = (node: number): number => node * 5;
    const snapshot: HeapSnapshot = {
      snapshot: {
        meta: {
          node_fields: ['type', 'name', 'id', 'self_size', 'edge_count'],
          node_types: [nodeTypes],
          edge_fields: ['type', 'name_or_index', 'to_node'],
          edge_types: [edgeTypes],
        },
      },
      nodes: [0, 0, 1, 0, 2, 1, 1, 2, 32, 3, 1, 2, 3, 32, 2, 2, 0, 4, 100, 0, 2, 0, 5, 40, 0],
      edges: [
        0, 3, at(1), 0, 4, at(2),
        1, 3, at(3), 2, 3, at(3), 0, 5, at(4),
        0, 6, at(3), 0, 7, at(4),
      ],
      strings: ['', 'A', 'B', 'a', 'b', 'first', 'items', 'second'],
    };
    expect([...arraysByHolder(snapshot)]).toEqual([
      ['object B .items', { count: 1, bytes: 100 }],
      ['object A .first', { count: 1, bytes: 40 }],
    ]);
  });

  it('returns nothing from a snapshot without edges rather than guessing holders', () => {
    const bare: HeapSnapshot = {
      snapshot: { meta: { node_fields: ['type', 'name', 'id', 'self_size', 'edge_count'], node_types: [['array']] } },
      nodes: [0, 0, 1, 16, 0],
      strings: [''],
    };
    expect(arraysByHolder(bare).size).toBe(0);
  });
});
