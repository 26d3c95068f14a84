/**
 * Plain-language fixes for failed set-up checks: RouterOS console commands an engineer can paste.
 * Accept rules go just before the rule that blocks (by its `.id`, which the console accepts as `*N`),
 * so they also precede every later drop.
 */
import type { RouterRecord } from '../routeros/records.js';
import type { BlockedVerdict as Blocked, ChainVerdict } from './firewall.js';
import { safeText } from '../util/text.js';

/**
 * A console argument value, quoted when it is not a plain word (names and comments may hold anything). Inside
 * the quotes every character the console would act on is escaped: `\\`, `"`, `$` (a variable), `?` (help at the
 * prompt), and every control character as RouterOS's `\\HH` (capital hex): a line feed must not end the command
 * and start another of the router's choosing.
 */
export function cliValue(value: string): string {
  if (/^[A-Za-z0-9._:/*-]+$/.test(value)) return value;
  return `"${value.replace(/[\\"$?]/g, (char) => `\\${char}`).replace(SHOWN_AS_BYTES, bytesOf)}"`;
}

/**
 * Characters a pasted command must not carry as they are: control characters, C1 ones too (U+009B is a terminal's
 * CSI), and the format characters that reorder or hide text (bidi overrides and isolates, zero-width ones): a name
 * with U+202E showed the operator a command that read otherwise than it ran (found by review).
 */
// eslint-disable-next-line no-control-regex
const SHOWN_AS_BYTES = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** A character as RouterOS's `\\HH` escapes of its UTF-8 bytes (capital hex). */
function bytesOf(char: string): string {
  return [...Buffer.from(char, 'utf8')].map((byte) => `\\${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/**
 * Whether the router's `.id` of an entry can stand in a command as it is: `*` and hex digits, as RouterOS writes
 * them. Anything else (a proxy's text, `*5 gateway=x ; /user add …`) must never reach a command the user pastes.
 */
export function isConsoleId(id: string | undefined): id is string {
  return id !== undefined && /^\*[0-9A-Fa-f]{1,16}$/.test(id);
}

const RULE_TEXT = 300;

/** `rule *5 (drop, in-interface-list=!LAN, "defconf: drop all not coming from LAN")`. */
export function describeRule(rule: RouterRecord): string {
  const id = rule['.id'];
  const parts = [rule['action'] ?? 'accept'];
  for (const key of ['protocol', 'dst-port', 'src-address', 'dst-address', 'in-interface', 'out-interface', 'in-interface-list', 'out-interface-list', 'connection-state']) {
    const value = rule[key];
    if (value !== undefined && value !== '') parts.push(`${key}=${value}`);
  }
  const comment = rule['comment'];
  if (comment !== undefined && comment !== '') parts.push(JSON.stringify(comment));
  // Bounded: it is quoted once per failing subnet, and a router's comment or address list can be any length.
  return safeText(`${id === undefined ? 'a rule' : `rule ${id}`} (${parts.join(', ')})`, RULE_TEXT);
}

/** `place-before=*5`, or the top of the list when the blocking rule has no id. */
export function placeBefore(verdict: ChainVerdict): string {
  // Before the rule of the chain the fix is added to: the jump that reaches the block, or the block itself.
  const id = verdict.passes ? undefined : (verdict.via ?? verdict.blockedBy)['.id'];
  return `place-before=${isConsoleId(id) ? id : '0'}`;
}

/**
 * The side of the traffic a fix before `rule` (the drop, or the jump to it) may accept, by the rule's incoming
 * interface or list: never the side the rule names, which may be the WAN (a drop of `in-interface=ether1` spares
 * `!ether1`, of `in-interface-list=!TRUSTED` spares `TRUSTED`), except defconf's `LAN`, which is the side a routed
 * subnet talks to (a jump of `in-interface-list=LAN` to a chain that drops: the fix takes `LAN`). '' when the rule
 * names none. A fix that takes more would let the WAN into the subnet (found by review).
 */
function sparedSide(rule: RouterRecord | undefined): string {
  if (rule === undefined) return '';
  for (const key of ['in-interface-list', 'in-interface']) {
    const value = rule[key]?.trim();
    if (value === undefined || value === '' || value === '!') continue;
    const negated = value.startsWith('!');
    const name = negated ? value.slice(1) : value;
    if (key === 'in-interface-list' && name.toUpperCase() === 'LAN') return ` ${key}=${cliValue(name)}`;
    return ` ${key}=${negated ? '' : '!'}${cliValue(name)}`;
  }
  return '';
}

/** The accept for the tunnel's own packets, before the rule (or the jump to it) that drops them. */
export function inputFix(iface: string, port: number, blocked: Blocked): string {
  return `/ip firewall filter add chain=input action=accept protocol=udp dst-port=${port} ${placeBefore(blocked)} comment=${cliValue(`WireGuard ${iface}`)}`;
}

/**
 * The accept for one direction of a routed subnet, before the rule (or the jump to it) that drops it. Connections
 * to the subnet come from the LAN side, which the audit does not know: the accept takes only the side the jump or
 * the drop spares (sparedSide), so that pasted before them it does not let the WAN into the subnet too.
 */
export function forwardFix(iface: string, subnet: string, direction: 'from' | 'to', blocked: Blocked): string {
  const spared = direction === 'to' ? sparedSide(blocked.via) || sparedSide(blocked.blockedBy) : '';
  const match = direction === 'from' ? `src-address=${subnet} in-interface=${cliValue(iface)}` : `dst-address=${subnet} out-interface=${cliValue(iface)}${spared}`;
  return `/ip firewall filter add chain=forward action=accept ${match} ${placeBefore(blocked)} comment=${cliValue(`WireGuard ${iface} ${direction} ${subnet}`)}`;
}
