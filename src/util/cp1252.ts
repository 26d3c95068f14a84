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
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Bytes as windows-1252 (Winbox on Western Windows), which maps every byte to one character. */
export function decodeCp1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
}
