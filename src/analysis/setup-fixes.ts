/**
 * Plain-language fixes for failed set-up checks: RouterOS console commands an engineer can paste.
 * Accept rules go just before the rule that blocks (by its `.id`, which the console accepts as `*N`),
 * so they also precede every later drop.
 *
 * A fix names the router's entries (the tunnel, an interface or list a rule names) by their names as the REST reply
 * gave them. A command must mean exactly the entry it names when pasted, or not be offered: a name that cannot be so
 * written (consoleValue) leaves its line out, and the check's detail says why (NoFix).
 */
import type { RouterRecord } from '../routeros/records.js';
import type { BlockedVerdict as Blocked, ChainVerdict } from './firewall.js';
import { safeText } from '../util/text.js';
import { redactSecretsDistinct } from '../util/redact.js';
import { decodeCp1252 } from '../util/cp1252.js';
import type { ReplyDecoding } from '../routeros/reply-text.js';

/**
 * How a value stands in a command: free text (a comment, which only labels), the name of an entry (an interface or a
 * list, in `interface=`, `in-interface=`, …), or a route's `gateway`, which reads an address as well as a name.
 */
export type ValueUse = 'text' | 'name' | 'gateway';

/** The longest value a fix writes: a longer name is a hostile reply's, and its command would not be shown whole. */
export const MAX_WRITTEN_CHARS = 1_024;

/** Findings listed word for word per check, and fix lines written; a hub with thousands of failing subnets gets a count of the rest. */
export const LISTED_FINDINGS = 10;

/** Why no fix line is offered (a name it would hold cannot be written: consoleValue), told in the check's detail. */
export interface NoFix {
  noFix: string;
}

/** A fix line: a command (or a `#` note) to paste, or why there is none. */
export type FixLine = string | NoFix;

/**
 * How the replies that the names a fix writes came in were read (routeros/reply-text.ts), when known: the tunnel's
 * (`interface/wireguard`), the rules' (`ip/firewall/filter`, the lists a rule names) and the addresses'
 * (`ip/address`, the interface of a connected network). Known, a name outside ASCII is written as the very bytes
 * the router sent; unknown, only when its text tells them (unwritable).
 */
export interface Decodings {
  tunnel?: ReplyDecoding | undefined;
  rules?: ReplyDecoding | undefined;
  addresses?: ReplyDecoding | undefined;
}

/**
 * A value as one console value that the router reads back as exactly `value`, or undefined when it cannot be written
 * so (unwritable says why). Plain words stand as they are; anything else is quoted, and inside the quotes every
 * character the console would act on is escaped: `\\`, `"`, `$` (a variable), `?` (help at the prompt); every
 * other character but printable ASCII is written as RouterOS's `\\HH` escapes of its bytes (capital hex; its UTF-8, or
 * the one byte it was read from when its reply was read as windows-1252, `decoding`, reply-text.ts): a line
 * feed must not end the command and start another of the router's choosing, a bidi override must not make the
 * command read otherwise than it runs (found by review), and the console takes 7-bit text only.
 */
export function consoleValue(value: string, use: ValueUse = 'text', decoding?: ReplyDecoding): string | undefined {
  return unwritable(value, use, decoding) === undefined ? written(value, decoding) : undefined;
}

/** consoleValue, as earlier fixes and tests call it. */
export const cliValue = consoleValue;

function written(value: string, decoding?: ReplyDecoding): string {
  if (/^[A-Za-z0-9._-]+$/.test(value)) return value;
  const bytes = decoding === 'cp1252' ? cp1252BytesOf : bytesOf;
  return `"${value.replace(/[\\"$?]/g, (char) => `\\${char}`).replace(AS_BYTES, bytes)}"`;
}

/** Every character but printable ASCII, by code point (a pair is one character, written as its four bytes). */
const AS_BYTES = /[^\u0020-\u007e]/gu;

/** A character as RouterOS's `\\HH` escapes of its UTF-8 bytes (capital hex). */
function bytesOf(char: string): string {
  return [...Buffer.from(char, 'utf8')].map((byte) => `\\${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** A character of a reply read as windows-1252 as RouterOS's `\\HH` escape of the byte it was read from. */
function cp1252BytesOf(char: string): string {
  const byte = CP1252_BYTE.get(char);
  if (byte === undefined) throw new Error('not a windows-1252 character (unwritable lets none through)');
  return `\\${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** Half of a surrogate pair without its other half: no character, and no bytes of the router's stand for it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/**
 * The characters a reply read as windows-1252 can hold (routeros/body.ts reads a reply that is not UTF-8 so): a name
 * of those alone (`wg-büro`) may be UTF-8 or windows-1252 bytes on the router, which the text does not tell when the
 * reply's reading is not known; one holding any other character (`wg-офис`) came from a UTF-8 reply, whose bytes
 * are its UTF-8. Each with the byte windows-1252 reads as it (a fix writes that byte).
 */
const CP1252_BYTE: ReadonlyMap<string, number> = new Map([...decodeCp1252(Uint8Array.from({ length: 256 }, (_, byte) => byte))].map((char, byte) => [char, byte]));

function bytesKnown(value: string): boolean {
  if (!/[\u0080-\uffff]/.test(value)) return true;
  for (const char of value) if (!CP1252_BYTE.has(char)) return true;
  return false;
}

/**
 * Why `value` cannot be written as a console value that means exactly it (and, as a name, that entry), or undefined
 * when it can. Worded to follow "the name …"; never quotes the value (it may be megabytes, or hold a secret).
 */
export function unwritable(value: string, use: ValueUse = 'text', decoding?: ReplyDecoding): string | undefined {
  if (value.length > MAX_WRITTEN_CHARS) return `is ${value.length} characters long`;
  if (use !== 'text') {
    if (value === '') return 'is empty';
    // `in-interface="!wg0"` is every interface but wg0, whatever the quotes.
    if (value.startsWith('!')) return 'starts with `!`, which RouterOS reads as "not"';
    if (/^\*[0-9A-Fa-f]+$/.test(value)) return "reads as an entry's id (`*N`)";
    // `gateway=10.0.0.1%ether1`, `gateway=a,b`, `gateway=10.0.0.1@main`: an address, a list, a table.
    if (use === 'gateway' && (/[,%@]/.test(value) || /^[0-9.]+$/.test(value) || (value.includes(':') && /^[0-9A-Fa-f:.]+$/.test(value)))) {
      return 'reads as an address in a route\'s gateway';
    }
  }
  if (LONE_SURROGATE.test(value)) return 'holds a lone UTF-16 surrogate, which stands for no bytes the router holds';
  if (decoding === 'cp1252') {
    // Read as windows-1252, every character stands for one byte; any other was not read from the router's bytes.
    for (const char of value) if (!CP1252_BYTE.has(char)) return 'holds a character that a reply read as windows-1252 cannot hold';
  } else if (decoding === undefined && !bytesKnown(value)) {
    return "holds characters outside ASCII whose bytes on the router the reply does not tell (UTF-8, or the code page Winbox typed them in)";
  }
  // Shown redacted (health/evaluate.ts), the command could not be pasted: it would name `[REDACTED…]`.
  if (redactSecretsDistinct(value) !== value) return 'holds text the exporter redacts as a secret';
  return undefined;
}

/**
 * RouterOS's "not" of a name consoleValue writes: `!ether1`, or `"!my if"` with the `!` inside the one quoted value
 * (`!"my if"` is a `!` and a string, two tokens, which the manual does not make one value).
 */
function notValue(name: string, decoding?: ReplyDecoding): string {
  return /^[A-Za-z0-9._-]+$/.test(name) ? `!${name}` : written(`!${name}`, decoding);
}

/** A comment naming the tunnel, or `fallback` (which names nothing of the router's) when the name cannot be written. */
export function commentValue(text: string, fallback: string, decoding?: ReplyDecoding): string {
  return consoleValue(text, 'text', decoding) ?? written(fallback);
}

/** The NoFix for a name consoleValue did not write (`what`: "the tunnel's name", …). */
export function noFix(what: string, value: string, use: ValueUse, decoding?: ReplyDecoding): NoFix {
  return { noFix: `${what} ${unwritable(value, use, decoding) ?? 'cannot be written'}` };
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
 * names none. A fix that takes more would let the WAN into the subnet (found by review); so a name that cannot be
 * written leaves the fix out (NoFix), never the restriction.
 */
function sparedSide(rule: RouterRecord | undefined, decoding: ReplyDecoding | undefined): string | NoFix {
  if (rule === undefined) return '';
  for (const key of ['in-interface-list', 'in-interface'] as const) {
    // As it is, as the audit judged it (firewall.ts: NAME_KEYS): `TRUSTED ` is not `TRUSTED`.
    const value = rule[key];
    if (value === undefined || value === '' || value === '!') continue;
    const negated = value.startsWith('!');
    const name = negated ? value.slice(1) : value;
    const written = consoleValue(name, 'name', decoding);
    if (written === undefined) return noFix(`the name of the ${key === 'in-interface' ? 'interface' : 'list'} a blocking rule names`, name, 'name', decoding);
    if (key === 'in-interface-list' && name.toUpperCase() === 'LAN') return ` ${key}=${written}`;
    return ` ${key}=${negated ? written : notValue(name, decoding)}`;
  }
  return '';
}

/** The accept for the tunnel's own packets, before the rule (or the jump to it) that drops them. */
export function inputFix(iface: string, port: number, blocked: Blocked, decodings: Decodings = {}): string {
  const comment = commentValue(`WireGuard ${iface}`, `WireGuard port ${port}`, decodings.tunnel);
  return `/ip firewall filter add chain=input action=accept protocol=udp dst-port=${port} ${placeBefore(blocked)} comment=${comment}`;
}

/**
 * The accept for one direction of a routed subnet, before the rule (or the jump to it) that drops it. Connections
 * to the subnet come from the LAN side, which the audit does not know: the accept takes only the side the jump or
 * the drop spares (sparedSide), so that pasted before them it does not let the WAN into the subnet too.
 */
export function forwardFix(iface: string, subnet: string, direction: 'from' | 'to', blocked: Blocked, decodings: Decodings = {}): FixLine {
  const name = consoleValue(iface, 'name', decodings.tunnel);
  if (name === undefined) return noFix("the tunnel's name", iface, 'name', decodings.tunnel);
  const spared = direction === 'to' ? sparedSide(blocked.via, decodings.rules) || sparedSide(blocked.blockedBy, decodings.rules) : '';
  if (typeof spared !== 'string') return spared;
  const match = direction === 'from' ? `src-address=${subnet} in-interface=${name}` : `dst-address=${subnet} out-interface=${name}${spared}`;
  const comment = commentValue(`WireGuard ${iface} ${direction} ${subnet}`, `WireGuard ${direction} ${subnet}`, decodings.tunnel);
  return `/ip firewall filter add chain=forward action=accept ${match} ${placeBefore(blocked)} comment=${comment}`;
}
