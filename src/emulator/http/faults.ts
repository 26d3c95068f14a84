/**
 * Which injected faults apply to a request, and the faults that rewrite the reply's content.
 * Transport faults (hang, truncation, dripping…) are carried out by the sender.
 */
import { STATUS_CODES } from 'node:http';
import type { JsonObject, JsonReply } from '../rest/json-out.js';
import { isList } from '../rest/json-out.js';
import type { Faults, ForcedStatus, ReplyFault } from '../types.js';
import type { Outgoing } from './outgoing.js';

export interface ActiveFaults {
  latencyMs: number;
  hang: boolean;
  closeKept: boolean;
  status: { code: number; detail?: string } | undefined;
  brokenJson: boolean;
  truncated: boolean;
  oversizedBytes: number;
  valueFloodBytes: number;
  wrongShape: boolean;
  html: boolean;
  slowBodyMs: number;
  invalidUtf8: boolean;
  controlChars: boolean;
  unknownFormats: boolean;
  reply: ReplyFault | undefined;
  echoAuthorization: boolean;
  noisyErrorChars: number;
}

/** `/rest/ip/address` and `ip/address` both mean the REST path `/ip/address`. */
export function normalisePrefix(prefix: string): string {
  const p = `/${prefix.replace(/^\/+/, '')}`;
  return p === '/rest' ? '/' : p.startsWith('/rest/') ? p.slice(5) : p;
}

function forced(value: ForcedStatus): { code: number; detail?: string } {
  return typeof value === 'number' ? { code: value } : value;
}

/** Merges every fault set whose scope covers `path` (later sets win); longest status prefix wins. */
export function activeFaults(sets: readonly Faults[], path: string): ActiveFaults {
  const out: ActiveFaults = {
    latencyMs: 0, hang: false, closeKept: false, status: undefined, brokenJson: false, truncated: false, oversizedBytes: 0,
    valueFloodBytes: 0,
    wrongShape: false, html: false, slowBodyMs: 0, invalidUtf8: false, controlChars: false, unknownFormats: false,
    reply: undefined, echoAuthorization: false, noisyErrorChars: 0,
  };
  let statusPrefix = -1;
  for (const set of sets) {
    if (set.path !== undefined && !path.startsWith(normalisePrefix(set.path))) continue;
    for (const [prefix, value] of Object.entries(set.status ?? {})) {
      const p = normalisePrefix(prefix);
      if (path.startsWith(p) && p.length >= statusPrefix) {
        out.status = forced(value);
        statusPrefix = p.length;
      }
    }
    out.latencyMs = set.latencyMs ?? out.latencyMs;
    out.hang = set.hang ?? out.hang;
    out.closeKept = set.closeKept ?? out.closeKept;
    out.brokenJson = set.brokenJson ?? out.brokenJson;
    out.truncated = set.truncated ?? out.truncated;
    out.oversizedBytes = set.oversizedBytes ?? out.oversizedBytes;
    out.valueFloodBytes = set.valueFloodBytes ?? out.valueFloodBytes;
    out.wrongShape = set.wrongShape ?? out.wrongShape;
    out.html = set.html ?? out.html;
    out.slowBodyMs = set.slowBodyMs ?? out.slowBodyMs;
    out.invalidUtf8 = set.invalidUtf8 ?? out.invalidUtf8;
    out.controlChars = set.controlChars ?? out.controlChars;
    out.unknownFormats = set.unknownFormats ?? out.unknownFormats;
    out.reply = set.reply ?? out.reply;
    out.echoAuthorization = set.echoAuthorization ?? out.echoAuthorization;
    out.noisyErrorChars = set.noisyErrorChars ?? out.noisyErrorChars;
  }
  return out;
}

export function reasonPhrase(code: number): string {
  return STATUS_CODES[code] ?? 'Error';
}

/** Value forms no decoder should accept: humanised CLI units, words instead of durations. */
export const UNKNOWN_FORMS: Readonly<Record<string, string>> = {
  'last-handshake': 'soon',
  rx: '5.3KiB',
  tx: '1.2MiB',
  uptime: '3 days',
  'cpu-load': '7%',
  'free-memory': '94.2MiB',
  'cpu-frequency': '864MHz',
  'listen-port': 'default',
  mtu: '1.5k',
  running: 'maybe',
  'avg-rtt': '0.4 ms',
  'min-rtt': '0.3 ms',
  'max-rtt': '0.5 ms',
  time: '0.4 ms',
  'packet-loss': '0%',
  'rx-total-average': '854.3Mbps',
  'tx-total-average': '21.0Mbps',
};

function unknownForms(row: JsonObject): JsonObject {
  const out: Record<string, string | number> = { ...row };
  for (const key of Object.keys(out)) {
    const form = UNKNOWN_FORMS[key];
    if (form !== undefined) out[key] = form;
  }
  // Peers that never shook hands get one too, so every peer row carries an undecodable age.
  if ('public-key' in out && 'interface' in out) out['last-handshake'] = 'soon';
  return out;
}

/** Placeholders replaced by raw bytes after serialisation (JSON.stringify leaves them intact). */
export const CP1252_MARK = '~~EMU-CP1252~~';
export const ESC_MARK = '~~EMU-ESC~~';
export const CP1252_BYTES = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x94]);
export const ESC_BYTES = Buffer.from('\x1b[31mred\x1b[0m', 'latin1');

/** Appends `marker` to every comment; without comments, to the first row's board-name or a new comment. */
function mark(body: JsonReply, marker: string): JsonReply {
  const rows = isList(body) ? body : [body];
  const anyComment = rows.some((r) => typeof r['comment'] === 'string');
  const out = rows.map((r, i): JsonObject => {
    if (anyComment) return typeof r['comment'] === 'string' ? { ...r, comment: `${r['comment']} ${marker}` } : r;
    if (i > 0) return r;
    const key = 'board-name' in r ? 'board-name' : 'comment';
    return { ...r, [key]: `${String(r[key] ?? '')} ${marker}`.trim() };
  });
  return isList(body) ? out : (out[0] ?? {});
}

/** Faults that change the reply as a value, before it is serialised. */
export function rewriteBody(body: JsonReply, faults: ActiveFaults): JsonReply {
  let out = body;
  if (faults.unknownFormats) out = isList(out) ? out.map(unknownForms) : unknownForms(out);
  if (faults.invalidUtf8) out = mark(out, CP1252_MARK);
  if (faults.controlChars) out = mark(out, ESC_MARK);
  if (faults.wrongShape) out = isList(out) ? (out[0] ?? {}) : [out];
  return out;
}

/** Serialised text → bytes, with placeholders swapped for raw (invalid) bytes. */
export function toBytes(text: string): Buffer {
  if (!text.includes('~~EMU-')) return Buffer.from(text, 'utf8');
  const parts = text.split(/(~~EMU-CP1252~~|~~EMU-ESC~~)/);
  return Buffer.concat(
    parts.map((p) => (p === CP1252_MARK ? CP1252_BYTES : p === ESC_MARK ? ESC_BYTES : Buffer.from(p, 'utf8'))),
  );
}

/**
 * What a hostile terminal-aware log reader fears: clear screen, a window-title change (OSC … BEL), a one-byte C1
 * CSI (U+009B), a right-to-left override that reverses what follows, colours.
 */
const NOISE = '\x1b[2J\x1b]0;owned\x07 \u009b31m C1 \u202eevil\u202c \x1b[31mred\x1b[0m ';

/** The detail of an error fault (echoAuthorization, noisyErrorChars), or undefined when neither applies. */
export function errorFaultDetail(faults: ActiveFaults, authorization: string | undefined): string | undefined {
  if (faults.echoAuthorization) return `cannot process request header Authorization: ${authorization ?? ''}`;
  if (faults.noisyErrorChars > 0) {
    return NOISE.repeat(Math.ceil(faults.noisyErrorChars / NOISE.length)).slice(0, faults.noisyErrorChars);
  }
  return undefined;
}

/** A successful reply replaced by the `reply` fault's (a redirect, an empty 200/204, a 304, another type). */
export function replaceReply(out: Outgoing, faults: ActiveFaults): Outgoing {
  const fault = faults.reply;
  if (fault === undefined || out.status >= 300) return out;
  const data = fault.body === 'data' || fault.text !== undefined;
  return {
    status: fault.status,
    ...(data ? { contentType: fault.contentType ?? out.contentType ?? 'application/json' } : fault.contentType === undefined ? {} : { contentType: fault.contentType }),
    body: fault.text !== undefined ? Buffer.from(fault.text, 'utf8') : data ? out.body : Buffer.alloc(0),
    ...(fault.location === undefined ? {} : { headers: { ...out.headers, Location: fault.location } }),
  };
}
