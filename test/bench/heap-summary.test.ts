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

  it('grows with the holders kept: the count is of this program\'s objects, not of V8\'s own', () => {
    const small = arraysByHolder(snapshotOf(40));
    expect([...small].find(([name]) => name === 'object RouterHolder .memory -> object Map .table')?.[1].count).toBe(40);
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
