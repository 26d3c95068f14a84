/**
 * What the exporter allocates, by function, for bench/memory.ts --allocation: V8's sampling heap profiler attached
 * over the inspector (the exporter started with --inspect on a loopback port), counting objects collected since as
 * well as those still alive, so it reports garbage per cycle, which is what garbage collection costs, and not only
 * what stays. Sampled (one sample per 4 KiB allocated on average): figures under ~0.5 MB per cycle are noise.
 */
import { WebSocket, type MessageEvent } from 'undici';

/** A node of V8's sampling heap profile (Chrome DevTools Protocol, HeapProfiler.SamplingHeapProfileNode). */
export interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/** One message over the inspector's WebSocket, answered by id. */
function send(socket: WebSocket, id: number, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent): void => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id !== id) return;
      socket.removeEventListener('message', onMessage);
      if (message.error !== undefined) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message.result);
    };
    socket.addEventListener('message', onMessage);
    socket.send(JSON.stringify({ id, method, params }));
  });
}

/**
 * Samples the allocations of the process whose inspector listens on `port` for `seconds`. With `survivorsOnly`,
 * only objects no young-generation collection took: those still alive and those promoted to the old generation
 * (and collected there later), which is what makes V8's full collections come sooner.
 */
export async function sampleAllocations(port: number, seconds: number, survivorsOnly = false): Promise<AllocationNode> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`the inspector at ${url} did not open`)), { once: true });
  });
  try {
    await send(socket, 1, 'HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !survivorsOnly,
    });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const { profile } = (await send(socket, 2, 'HeapProfiler.stopSampling')) as { profile: { head: AllocationNode } };
    return profile.head;
  } finally {
    socket.close();
  }
}

/** `function file:line`, with the path from the repository's src/ or dist/ (or node_modules/) on. */
function site(node: AllocationNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(src|dist|node_modules)\//, '$1/');
  return `${functionName === '' ? '(anonymous)' : functionName} ${file === '' ? '(native)' : `${file}:${lineNumber + 1}`}`;
}

/**
 * The profile by site, per cycle: bytes allocated in each function itself (self) and under it (inclusive, each
 * site counted once per stack however often it recurses).
 */
export function allocationsBySite(head: AllocationNode): { total: number; self: Map<string, number>; inclusive: Map<string, number> } {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocationNode, above: readonly string[]): void => {
    const here = site(node);
    const stack = above.includes(here) ? above : [...above, here];
    if (node.selfSize > 0) {
      total += node.selfSize;
      self.set(here, (self.get(here) ?? 0) + node.selfSize);
      for (const name of stack) inclusive.set(name, (inclusive.get(name) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, stack);
  };
  walk(head, []);
  // The root and V8's own frames hold everything: not a site.
  inclusive.delete(site(head));
  return { total, self, inclusive };
}

/** Prints the top sites, in MB per cycle of `cycleSeconds` over a sample of `seconds`. */
export function printAllocations(head: AllocationNode, seconds: number, cycleSeconds: number, survivorsOnly = false, top = 25): void {
  const { total, self, inclusive } = allocationsBySite(head);
  const perCycle = (bytes: number): string => (bytes / 1e6 / (seconds / cycleSeconds)).toFixed(1).padStart(7);
  const what = survivorsOnly ? 'outlived the young generation (promoted, or still alive)' : 'allocated';
  console.log(`${what}: ${perCycle(total).trim()} MB per ${cycleSeconds} s cycle (sampled over ${seconds} s${survivorsOnly ? '' : ', garbage included'}); by site, MB per cycle:`);
  const rank = (map: Map<string, number>): [string, number][] => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log('  self');
  for (const [name, bytes] of rank(self)) console.log(`  ${perCycle(bytes)}  ${name}`);
  console.log('  inclusive');
  for (const [name, bytes] of rank(inclusive)) console.log(`  ${perCycle(bytes)}  ${name}`);
}
