/**
 * Certificates in PEM text, read as OpenSSL reads them, for the two places a file of them is trusted: the routers'
 * CA (`tls.ca_file`, config/router.ts) and the web config's client CA (server/client-ca.ts). Each is checked
 * before it is installed, since OpenSSL takes what it can read of a file and says nothing of the rest: a file cut
 * short by a rewrite that is not atomic, or a bundle with a broken block before good ones, was installed as if whole.
 */
import { X509Certificate } from 'node:crypto';

const BEGIN_LINE = '-----BEGIN CERTIFICATE-----';
const END_LINE = '-----END CERTIFICATE-----';

/**
 * The BEGIN line of a PEM block of another certificate type (`X509 CERTIFICATE`, `TRUSTED CERTIFICATE`), at the start
 * of its line: a certificate the operator meant to trust that this check does not read. Quoted after other text (a
 * comment) it is no block, and refusing the file for it refused good bundles (found by review).
 */
const OTHER_CERTIFICATE_BLOCK = /^-----BEGIN ([A-Z0-9 ]+ CERTIFICATE)-----/;

export interface PemScan {
  /** The CERTIFICATE blocks, each as OpenSSL reads it: lines cut at their first CR, blanks after BEGIN dropped. */
  blocks: string[];
  /** A line holds a BEGIN of a certificate that does not start it: not read. */
  misplaced: boolean;
  /** The type of the first block of another certificate type, if any. */
  other: string | undefined;
  /** The text ends inside a block (BEGIN with no END): a file cut short. */
  unterminated: boolean;
}

/**
 * The certificate blocks of a PEM text, read line by line as OpenSSL reads them: a line ends at a line feed only
 * (not at U+2028 or a lone CR, where a regular expression's `^` also matched), and is cut at its first CR. A BEGIN
 * after other text on its line is not read. Linear in the text: a pattern for that last case took 4.9 s on a
 * 128 KB line (a base64-encoded bundle written undecoded; found by review).
 */
export function scanPem(text: string): PemScan {
  const blocks: string[] = [];
  let misplaced = false;
  let other: string | undefined;
  let open: string[] | undefined;
  // A byte-order mark (a file saved by Windows Notepad) is not part of the first line, to OpenSSL either.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (const raw of body.split('\n')) {
    const cr = raw.indexOf('\r');
    const line = cr < 0 ? raw : raw.slice(0, cr);
    const ends = line.trimEnd();
    if (open !== undefined) {
      open.push(line);
      if (line.startsWith(END_LINE)) {
        blocks.push(open.join('\n'));
        open = undefined;
      }
      continue;
    }
    // OpenSSL lets blanks trail the BEGIN line; the parser here would refuse them.
    if (line.startsWith(BEGIN_LINE) && ends === BEGIN_LINE) {
      open = [BEGIN_LINE];
      continue;
    }
    const at = raw.indexOf('-----BEGIN ');
    if (at > 0 && raw.includes('CERTIFICATE-----', at)) misplaced = true;
    else if (at === 0) other ??= OTHER_CERTIFICATE_BLOCK.exec(line)?.[1];
  }
  // A file cut inside a BEGIN line ends in a piece of one (`-----BEG`), no line feed after it.
  const last = body.slice(body.lastIndexOf('\n') + 1);
  const cutInBegin = last !== '' && BEGIN_LINE.startsWith(last);
  return { blocks, misplaced, other, unterminated: open !== undefined || cutInBegin };
}

/**
 * What a file of certificates holds: each one read (and whether a BEGIN line not at the start of its line was left
 * unread, as OpenSSL leaves it), or why the file cannot be trusted as it is (`empty`: no certificate block at all).
 */
export type PemCertificates = { certificates: X509Certificate[]; misplaced: boolean } | { problem: string; empty: boolean };

/**
 * Every certificate of a PEM text, or why not: no CERTIFICATE block, a block of another type, a block cut short, a
 * block that does not read as a certificate. At most `limit` blocks are read (the work grows with them).
 */
export function readPemCertificates(text: string, limit: number): PemCertificates {
  const scan = scanPem(text);
  if (scan.other !== undefined) return { problem: `holds a "${scan.other}" block: write each certificate as a PEM "BEGIN CERTIFICATE" block`, empty: false };
  const { blocks } = scan;
  if (scan.unterminated) {
    return { problem: `ends inside certificate ${String(blocks.length + 1)}, with no "${END_LINE}" line: a file cut short (written while it was read?)`, empty: false };
  }
  if (blocks.length === 0) return { problem: `holds no certificate (a PEM "${BEGIN_LINE}" block)`, empty: true };
  if (blocks.length > limit) return { problem: `holds ${String(blocks.length)} certificates, more than the ${String(limit)} such a file may`, empty: false };
  const certificates: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      return { problem: `its certificate ${String(index + 1)} of ${String(blocks.length)} cannot be read (cut short or damaged)`, empty: false };
    }
  }
  return { certificates, misplaced: scan.misplaced };
}
