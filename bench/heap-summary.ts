/**
 * A V8 heap snapshot (the .heapsnapshot JSON) summarised for bench/memory.ts: self sizes by node type and
 * constructor, and strings by what they are (public keys, label text, rx/tx memory keys, …), which is what
 * tells a copy per peer from a shared one. Self sizes only (no dominator tree): enough to find the big holders.
 */

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const MB = 1024 * 1024;

/** What a string in the exporter's heap is, by its text. */
function stringKind(text: string): string {
  if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return 'WireGuard public key (44 chars)';
  if (/^[rt]x interface="/.test(text)) return 'rx/tx memory key (wireguard job memory)';
  if (text.includes('router="')) return 'label text (router="…",…)';
  if (/^(interface|public_key)="/.test(text)) return 'peer identity (interface=…,public_key=…)';
  if (/^wg\d+$/.test(text)) return 'interface name';
  if (/^peer \d+ of /.test(text)) return 'peer comment (scale scenario)';
  return `other: ${text.slice(0, 10).replace(/\d/g, '9')}… (${text.length < 16 ? '<16' : text.length < 64 ? '<64' : '≥64'} chars)`;
}

export function summariseHeapSnapshot(snapshot: HeapSnapshot): void {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const byKind = new Map<string, { count: number; bytes: number }>();
  const strings = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  const add = (map: Map<string, { count: number; bytes: number }>, key: string, bytes: number): void => {
    const entry = map.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += bytes;
    map.set(key, entry);
  };
  for (let at = 0; at < snapshot.nodes.length; at += width) {
    const type = types[snapshot.nodes[at + typeAt] as number] ?? '?';
    const name = snapshot.strings[snapshot.nodes[at + nameAt] as number] ?? '';
    const size = snapshot.nodes[at + sizeAt] as number;
    total += size;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
      add(byKind, `(${type})`, size);
      add(strings, stringKind(name), size);
    } else if (type === 'object' || type === 'closure' || type === 'native') {
      add(byKind, `${type} ${name.slice(0, 40)}`, size);
    } else {
      add(byKind, `(${type})`, size);
    }
  }
  const print = (title: string, map: Map<string, { count: number; bytes: number }>, top: number): void => {
    console.log(title);
    for (const [key, { count, bytes }] of [...map].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
      console.log(`  ${key.padEnd(60)} ${(bytes / MB).toFixed(1).padStart(7)} MB ${String(count).padStart(9)}`);
    }
  };
  console.log(`heap snapshot: ${(total / MB).toFixed(1)} MB in ${snapshot.nodes.length / width} nodes (self sizes)`);
  print('by type and constructor (MB, count):', byKind, 25);
  print('strings by kind (MB, count):', strings, 25);
}
