/**
 * Windows-1252, the code page Winbox types in on Western Windows: how a router's reply that is not UTF-8 is read
 * (routeros/body.ts), and so one of the forms a password echoed in such a reply takes (redact.ts).
 */

/**
 * Windows-1252's characters for bytes 0x80–0x9F (where it differs from ISO-8859-1); the five bytes it leaves
 * undefined keep their C1 code point, as the WHATWG decoder does. Spelled out here rather than left to
 * `TextDecoder('latin1')`, which is ISO-8859-1 on Node 20 and windows-1252 on Node 22+: the same reply must give
 * the same label values on every Node the exporter runs on.
 */
const CP1252_HIGH = Uint16Array.from(
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
    '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178',
  (char) => char.charCodeAt(0),
);

/**
 * Bytes decoded per step. A window without a byte in 0x80–0x9F is ISO-8859-1 as it is (one native decode); one
 * with such a byte is written out as UTF-16 code units into a scratch buffer of twice its size, and decoded once.
 * Never a JavaScript call per character: a reply of 32 MiB of those bytes (the size cap) held the event loop for
 * ~15 s through a regular expression's replacer.
 */
const WINDOW = 64 * 1024;
let scratch: Buffer | undefined;

function hasHighControl(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const byte = bytes[i] as number;
    if (byte >= 0x80 && byte <= 0x9f) return true;
  }
  return false;
}

/** Bytes as windows-1252 (Winbox on Western Windows), which maps every byte to one character. */
export function decodeCp1252(bytes: Uint8Array): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = '';
  for (let from = 0; from < view.length; from += WINDOW) {
    const to = Math.min(from + WINDOW, view.length);
    if (!hasHighControl(view, from, to)) {
      text += view.toString('latin1', from, to);
      continue;
    }
    scratch ??= Buffer.allocUnsafe(2 * WINDOW);
    let at = 0;
    for (let i = from; i < to; i++) {
      const byte = view[i] as number;
      const unit = byte >= 0x80 && byte <= 0x9f ? (CP1252_HIGH[byte - 0x80] as number) : byte;
      // UTF-16LE, whatever the machine's byte order.
      scratch[at++] = unit & 0xff;
      scratch[at++] = unit >> 8;
    }
    text += scratch.toString('utf16le', 0, at);
  }
  return text;
}
