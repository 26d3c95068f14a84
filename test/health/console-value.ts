/**
 * RouterOS's console as it reads one argument value, written from its scripting manual ("Scripting": constant
 * escape sequences, delimiters), to check the audit's fixes against: what an operator pastes is the UTF-8 of the
 * fix, and the console takes 7-bit text only (anything else is written as `\HH`).
 *
 * - A bare word: letters, digits and `._-` (and `!*,%@+`, which are no delimiters); the grammar's delimiters
 *   `() [] {} : ; $ /`, a space, `"`, `\`, `?` (help at the prompt) and `#` end or break it.
 * - A quoted value: `"…"`, inside which every byte is printable ASCII, `$` (a variable) and `?` (help) only escaped,
 *   and `\` starts one of `\" \\ \n \r \t \$ \? \_ \a \b \f \v` or `\HH`, a byte in capital hex.
 * - RouterOS's "not" is a leading `!` of the value read: `!ether1` bare, or inside the quotes (`"!my if"`); a quoted
 *   string after a bare `!` (`!"my if"`) is two tokens, which the manual does not make one value.
 * Returns the value's bytes, or undefined when the text is not one value (a console would read something else).
 */
import { decodeCp1252 } from '../../src/util/cp1252.js';

const ESCAPES: Readonly<Record<string, number>> = { '"': 0x22, '\\': 0x5c, n: 0x0a, r: 0x0d, t: 0x09, $: 0x24, '?': 0x3f, _: 0x20, a: 0x07, b: 0x08, f: 0x0c, v: 0x0b };

export function readConsoleValue(text: string): Uint8Array | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const out: number[] = [];
  let at = 0;
  if (bytes[at] !== 0x22) {
    if (bytes.length === 0) return undefined;
    for (; at < bytes.length; at++) {
      const char = String.fromCharCode(bytes[at] as number);
      if (!/^[A-Za-z0-9._!*,%@+-]$/.test(char)) return undefined;
      out.push(bytes[at] as number);
    }
    return Uint8Array.from(out);
  }
  at++;
  for (;;) {
    const byte = bytes[at];
    if (byte === undefined) return undefined;
    if (byte < 0x20 || byte > 0x7e || byte === 0x24 || byte === 0x3f) return undefined;
    if (byte === 0x22) return at === bytes.length - 1 ? Uint8Array.from(out) : undefined;
    if (byte !== 0x5c) {
      out.push(byte);
      at++;
      continue;
    }
    const hex = bytes.subarray(at + 1, at + 3).toString('latin1');
    if (/^[0-9A-F]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      at += 3;
      continue;
    }
    const escaped = ESCAPES[String.fromCharCode(bytes[at + 1] ?? 0)];
    if (escaped === undefined) return undefined;
    out.push(escaped);
    at += 2;
  }
}

const CP1252 = decodeCp1252(Uint8Array.from({ length: 256 }, (_, byte) => byte));
const CP1252_BYTE = new Map([...CP1252].map((char, byte) => [char, byte]));

/**
 * The bytes a router may hold for a name the exporter read as `name`: its UTF-8 (a reply that was UTF-8; none for a
 * lone surrogate, which no bytes decode to) and its windows-1252 (a reply that was not, routeros/body.ts), when every
 * character is one windows-1252 has.
 */
export function routerBytes(name: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  if (!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(name)) out.push(Buffer.from(name, 'utf8'));
  const cp: number[] = [];
  for (const char of name) {
    const byte = CP1252_BYTE.get(char);
    if (byte === undefined) return out;
    cp.push(byte);
  }
  out.push(Uint8Array.from(cp));
  return out;
}

/** A command as the console would split it: its menu path, verb, target (`*N` or a `[find …]`) and `key=value` arguments. */
export interface ConsoleCommand {
  path: string;
  verb: string;
  target?: string;
  args: Map<string, string>;
}

/** A bare value of the audit's own words (addresses, ports, ids, `main`): no delimiter of the grammar. */
const BARE = /^[A-Za-z0-9._!*,%@+/:-]+$/;
/** The one placeholder a fix leaves for the operator to fill in. */
const PLACEHOLDER = '<tunnel-address>/<prefix-length>';

/**
 * One fix line read as the console's grammar would: exactly one command (`/menu path verb [target] key=value …`),
 * each value one console value (readConsoleValue) and nothing else on the line — no `;` that ends it early, no `#`
 * that comments the rest out, no `$`, `[`, `]`, `{`, `}` or `?` outside a value, no raw control character. A `set`
 * target is `*N` or `[find key=value …]` of bare values. Undefined when the line is not that.
 */
export function readConsoleCommand(line: string): ConsoleCommand | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(line)) return undefined;
  const words = line.match(/\[find(?: [a-z-]+=[A-Za-z0-9._/-]+)+\]|(?:[^\s"]|"(?:[^"\\]|\\.)*")+|\s+/g) ?? [];
  if (words.join('') !== line) return undefined;
  const tokens = words.filter((word) => !/^\s+$/.test(word));
  const verbAt = tokens.findIndex((word) => word === 'add' || word === 'set');
  if (verbAt < 1) return undefined;
  const path = tokens.slice(0, verbAt);
  if (!/^\/[a-z-]+$/.test(path[0] ?? '') || !path.slice(1).every((word) => /^[a-z-]+$/.test(word))) return undefined;
  const command: ConsoleCommand = { path: path.join(' '), verb: tokens[verbAt] as string, args: new Map() };
  let rest = tokens.slice(verbAt + 1);
  if (command.verb === 'set') {
    const target = rest[0] ?? '';
    if (!/^\*[0-9A-F]+$/.test(target) && !target.startsWith('[find ')) return undefined;
    command.target = target;
    rest = rest.slice(1);
  }
  for (const word of rest) {
    const eq = word.indexOf('=');
    const key = word.slice(0, eq);
    const value = word.slice(eq + 1);
    if (eq < 1 || !/^[a-z-]+$/.test(key) || command.args.has(key)) return undefined;
    if (!(BARE.test(value) || value === PLACEHOLDER || (value.startsWith('"') && readConsoleValue(value) !== undefined))) return undefined;
    command.args.set(key, value);
  }
  return command;
}

/**
 * A fix's lines as the console reads them: every command line one command (readConsoleCommand), every note a `#`
 * line, and the notes after every command, so that joined with ` ; ` into one line (check's output, the verdict
 * log) a note comments out no command. Throws saying which line is not so.
 */
export function expectConsoleLines(fix: string): ConsoleCommand[] {
  const commands: ConsoleCommand[] = [];
  let noted = false;
  for (const line of fix.split('\n')) {
    if (line.startsWith('# ')) {
      noted = true;
      continue;
    }
    const command = readConsoleCommand(line);
    if (command === undefined) throw new Error(`not one console command: ${JSON.stringify(line)}`);
    if (noted) throw new Error(`a command after a note: ${JSON.stringify(line)}`);
    commands.push(command);
  }
  return commands;
}
