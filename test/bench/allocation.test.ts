/**
 * bench/memory.ts --allocation: V8's sampling heap profiler, attached over a real inspector to another process,
 * and the profile read by site.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { allocationsBySite, sampleAllocations, type AllocationNode } from '../../bench/allocation.js';

const node = (functionName: string, selfSize: number, children: AllocationNode[] = [], url = 'file:///repo/dist/x.js'): AllocationNode => ({
  callFrame: { functionName, url, lineNumber: 9 },
  selfSize,
  children,
});

describe('allocations by site', () => {
  it('adds self sizes per function, and inclusive sizes once per stack however often a function recurses', () => {
    const head = node('(root)', 0, [node('outer', 10, [node('inner', 5), node('outer', 7, [node('inner', 3)])]), node('inner', 100)], '');
    const { total, self, inclusive } = allocationsBySite(head);
    expect(total).toBe(125);
    expect(self.get('outer dist/x.js:10')).toBe(17);
    expect(self.get('inner dist/x.js:10')).toBe(108);
    // outer holds everything under it once (10 + 5 + 7 + 3), not its recursive call's bytes twice.
    expect(inclusive.get('outer dist/x.js:10')).toBe(25);
    expect(inclusive.get('inner dist/x.js:10')).toBe(108);
    expect(inclusive.has('(root) (native)')).toBe(false);
  });
});

describe('sampling another process over its inspector', () => {
  it("finds the function that allocates, garbage included (its arrays die at once)", async () => {
    const child = spawn(
      process.execPath,
      ['--inspect=127.0.0.1:0', '-e', 'function churn() { let kept = 0; for (let i = 0; i < 2000; i++) kept += new Array(64).fill(i).length; return kept; } setInterval(churn, 5);'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    try {
      let text = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (text += chunk));
      const listening = /ws:\/\/127\.0\.0\.1:(\d+)\//;
      let found = listening.exec(text);
      while (found === null) {
        await once(child.stderr, 'data');
        found = listening.exec(text);
      }
      const port = Number(found[1]);
      const { self } = allocationsBySite(await sampleAllocations(port, 1));
      // ~1 MB a call, 200 calls a second: far above the sampler's 4 KiB interval.
      expect(self.get('churn [eval]:1') ?? 0).toBeGreaterThan(10_000_000);
    } finally {
      child.kill();
    }
  });
});
