/**
 * Applies the audit's fix commands to recorded records, as the router would, so tests can check that a fix
 * really makes its check pass. Understands exactly the command forms the audit writes.
 */
import type { RouterRecord } from '../../src/routeros/records.js';
import type { SetupRecords } from '../../src/analysis/setup-audit.js';
import { parseIpv4Prefix } from '../../src/analysis/ipv4.js';
import { saysTrue } from '../../src/routeros/decode.js';

type Mutable = { -readonly [K in keyof SetupRecords]: RouterRecord[] };

/**
 * `key=value` words; values may be "quoted" with backslash escapes (`\\"`, `\\$`, and `\\HH` as RouterOS reads it: a
 * byte, so a character written as the `\\HH` of its UTF-8 bytes reads back as itself).
 */
export function parseWords(command: string): { path: string; verb: string; target?: string; args: Map<string, string> } {
  const words: string[] = [];
  let i = 0;
  while (i < command.length) {
    if (command[i] === ' ') {
      i++;
      continue;
    }
    const bytes: number[] = [];
    const text = (chars: string): void => {
      bytes.push(...Buffer.from(chars, 'utf8'));
    };
    while (i < command.length && command[i] !== ' ') {
      if (command[i] === '"') {
        i++;
        while (i < command.length && command[i] !== '"') {
          if (command[i] === '\\') {
            i++;
            // RouterOS's `\HH`: a byte in capital hex; any other escaped character stands for itself.
            const hex = command.slice(i, i + 2);
            if (/^[0-9A-F]{2}$/.test(hex)) {
              bytes.push(parseInt(hex, 16));
              i += 2;
              continue;
            }
          }
          const char = String.fromCodePoint(command.codePointAt(i) ?? 0);
          text(char);
          i += char.length;
        }
        i++;
      } else {
        const char = String.fromCodePoint(command.codePointAt(i) ?? 0);
        text(char);
        i += char.length;
      }
    }
    words.push(Buffer.from(bytes).toString('utf8'));
  }
  const verbAt = words.findIndex((word) => word === 'add' || word === 'set');
  const args = new Map<string, string>();
  let target: string | undefined;
  const rest = words.slice(verbAt + 1);
  for (let at = 0; at < rest.length; at++) {
    const word = rest[at] as string;
    // A `[find …]` target, whole: its words are the find's, not the command's.
    if (word.startsWith('[')) {
      const end = rest.findIndex((later, index) => index >= at && later.endsWith(']'));
      const last = end < 0 ? rest.length - 1 : end;
      target = rest.slice(at, last + 1).join(' ');
      at = last;
      continue;
    }
    const eq = word.indexOf('=');
    if (eq < 0) target = word;
    else args.set(word.slice(0, eq), word.slice(eq + 1));
  }
  return { path: words.slice(0, verbAt).join(' '), verb: words[verbAt] ?? '', ...(target === undefined ? {} : { target }), args };
}

/**
 * The routes a console's `[find k=v …]` selects, as this test reads RouterOS: every `k=v` must hold; `dst-address` is
 * compared as a network (the router keeps it so), `routing-table` is `main` when a route names none, `disabled=no`
 * is every route not disabled, and any other key is compared as the reply wrote it.
 */
export function findSelects(target: string, routes: readonly RouterRecord[]): RouterRecord[] {
  const inner = /^\[find((?: [^ \]]+)*)\]$/.exec(target);
  if (inner === null) throw new Error(`not a find: ${target}`);
  const wanted = (inner[1] ?? '').trim().split(' ').filter((word) => word !== '').map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] as const);
  const network = (text: string): string => {
    const prefix = parseIpv4Prefix(text);
    return prefix === undefined ? `?${text}` : `${prefix.network}/${prefix.length}`;
  };
  return routes.filter((route) =>
    wanted.every(([key, value]) => {
      if (key === 'dst-address') return network(route['dst-address'] ?? '0.0.0.0/0') === network(value);
      if (key === 'routing-table') return (route['routing-table'] || 'main') === value;
      if (key === 'disabled') return (value === 'yes') === saysTrue(route['disabled']);
      return route[key] === value;
    }),
  );
}

let created = 0x1000;

export function applyFixes(records: SetupRecords, fixes: readonly string[], tunnelAddress = '10.99.0.1/24'): SetupRecords {
  const out: Mutable = {
    interfaces: [...records.interfaces],
    peers: [...records.peers],
    addresses: [...records.addresses],
    routes: [...records.routes],
    filter: [...records.filter],
  };
  for (const command of fixes) {
    if (command.startsWith('#')) throw new Error(`not a command: ${command}`);
    const { path, verb, target, args } = parseWords(command);
    const id = `*${(created++).toString(16).toUpperCase()}`;
    const record = Object.fromEntries([['.id', id], ...[...args].filter(([key]) => key !== 'place-before')]) as Record<string, string>;
    if (path === '/ip address' && verb === 'add') {
      out.addresses.push({ ...record, address: tunnelAddress });
    } else if (path === '/ip route' && verb === 'add') {
      out.routes.push(record);
    } else if (path === '/ip route' && verb === 'set') {
      const chosen = new Set(target?.startsWith('[') === true ? findSelects(target, out.routes) : out.routes.filter((route) => route['.id'] === target));
      // RouterOS refuses to change a dynamic route (DHCP's, BGP's, OSPF's): it stays as it was.
      out.routes = out.routes.map((route) => (chosen.has(route) && !saysTrue(route['dynamic']) ? { ...route, ...record, '.id': route['.id'] ?? '' } : route));
    } else if (path === '/ip firewall filter' && verb === 'add') {
      const before = args.get('place-before');
      const at = before === '0' ? 0 : out.filter.findIndex((rule) => rule['.id'] === before);
      if (at < 0) throw new Error(`no rule ${before ?? '?'} to place before`);
      out.filter.splice(at, 0, record);
    } else {
      throw new Error(`unexpected fix: ${command}`);
    }
  }
  return out;
}
