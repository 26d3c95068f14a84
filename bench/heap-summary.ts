/**
 * A V8 heap snapshot (the .heapsnapshot JSON) summarised for bench/memory.ts: self sizes by node type and
 * constructor, and strings by what they are (public keys, label text, rx/tx memory keys, …), which is what
 * tells a copy per peer from a shared one. Self sizes only (no dominator tree): enough to find the big holders.
 */

export interface HeapSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields?: string[];
      edge_types?: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges?: number[];
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

/** Bytes and counts by key: what every table below is made of. */
type Tally = Map<string, { count: number; bytes: number }>;

function add(map: Tally, key: string, bytes: number): void {
  const entry = map.get(key) ?? { count: 0, bytes: 0 };
  entry.count++;
  entry.bytes += bytes;
  map.set(key, entry);
}

export function summariseHeapSnapshot(snapshot: HeapSnapshot): void {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const byKind: Tally = new Map();
  const strings: Tally = new Map();
  let total = 0;
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
  const print = (title: string, map: Tally, top: number): void => {
    console.log(title);
    for (const [key, { count, bytes }] of [...map].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
      console.log(`  ${key.padEnd(60)} ${(bytes / MB).toFixed(1).padStart(7)} MB ${String(count).padStart(9)}`);
    }
  };
  console.log(`heap snapshot: ${(total / MB).toFixed(1)} MB in ${snapshot.nodes.length / width} nodes (self sizes)`);
  print('by type and constructor (MB, count):', byKind, 25);
  print('strings by kind (MB, count):', strings, 25);
  const held = arraysByHolder(snapshot);
  if (held.size > 0) print("V8's internal arrays (elements, Map and Set tables, out-of-object properties) by holder (MB, count):", held, 25);
}

/**
 * V8's internal arrays, the "(array)" line above, by what holds them: an object's elements, a Map's or Set's
 * table, a dictionary object's properties. Each is named by its holder and the holder's own holder
 * (`object JobRunner .memory -> object Map .table`), since a Map is nothing until one knows whose it is. A node's
 * holder is the first object, closure or native node, in the snapshot's order, with a strong edge to it (not a weak
 * or shortcut one); arrays that only V8's internal nodes hold are counted as "(no holder)". Enough to tell a
 * structure kept per router (counts in the thousands at fleet shape) from one kept once.
 */
export function arraysByHolder(snapshot: HeapSnapshot): Tally {
  const out: Tally = new Map();
  const { meta } = snapshot.snapshot;
  const edges = snapshot.edges;
  if (edges === undefined || meta.edge_fields === undefined || meta.edge_types === undefined) return out;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const width = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const sizeAt = meta.node_fields.indexOf('self_size');
  const edgeCountAt = meta.node_fields.indexOf('edge_count');
  const edgeTypeAt = meta.edge_fields.indexOf('type');
  const edgeNameAt = meta.edge_fields.indexOf('name_or_index');
  const edgeToAt = meta.edge_fields.indexOf('to_node');
  const count = snapshot.nodes.length / width;
  const holder = new Int32Array(count).fill(-1);
  const via: string[] = new Array<string>(count);
  const typeOf = (node: number): string => nodeTypes[snapshot.nodes[node * width + typeAt] as number] ?? '?';
  let edge = 0;
  for (let node = 0; node < count; node++) {
    const edgeCount = snapshot.nodes[node * width + edgeCountAt] as number;
    const type = typeOf(node);
    const holds = type === 'object' || type === 'closure' || type === 'native';
    for (let index = 0; index < edgeCount; index++, edge += edgeWidth) {
      if (!holds) continue;
      const to = (edges[edge + edgeToAt] as number) / width;
      const edgeType = edgeTypes[edges[edge + edgeTypeAt] as number] ?? '?';
      if (holder[to] !== -1 || edgeType === 'weak' || edgeType === 'shortcut') continue;
      holder[to] = node;
      via[to] = edgeType === 'element' || edgeType === 'hidden' ? `[${edgeType}]` : String(snapshot.strings[edges[edge + edgeNameAt] as number]);
    }
  }
  const describe = (node: number): string => `${typeOf(node)} ${(snapshot.strings[snapshot.nodes[node * width + nameAt] as number] ?? '').slice(0, 30)}`;
  for (let node = 0; node < count; node++) {
    if (typeOf(node) !== 'array') continue;
    const owner = holder[node] as number;
    let key = '(no holder)';
    if (owner >= 0) {
      const ownersOwner = holder[owner] as number;
      const outer = ownersOwner >= 0 ? `${describe(ownersOwner)} .${via[owner] ?? ''} -> ` : '';
      key = `${outer}${describe(owner)} .${via[node] ?? ''}`;
    }
    add(out, key, snapshot.nodes[node * width + sizeAt] as number);
  }
  return out;
}
