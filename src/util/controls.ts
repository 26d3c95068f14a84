/**
 * Characters that steer a terminal or hide text, stripped from router text before it is printed (text.ts), and so the
 * forms an echoed secret takes once stripped (redact.ts registers them): one module both use, without importing each
 * other.
 */

/**
 * Removed: C0 controls but tab, line feed and carriage return, DEL, C1 controls (U+0080–U+009F: 0x9B is a
 * one-byte CSI), line and paragraph separators, and every character Unicode calls default-ignorable: the
 * invisible ones that reorder or hide text (bidi embeddings, overrides and isolates, marks, zero-width characters,
 * the byte-order mark) and those that show nothing at all (a soft hyphen, the combining grapheme joiner,
 * variation selectors, Hangul fillers, tags), any of which can split an echoed secret so that it reads whole on a
 * screen and no longer matches as one.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\p{Default_Ignorable_Code_Point}]/gu;
const LINE_BREAKS = /[\t\n\r]+/g;

/** Without terminal controls and bidi tricks; with `singleLine`, tabs and line breaks become one space. */
export function stripControls(text: string, singleLine = true): string {
  const stripped = text.replace(UNSAFE, '');
  return singleLine ? stripped.replace(LINE_BREAKS, ' ') : stripped;
}
