/**
 * The web config's client CA bundle (`client_ca_file`), checked before it is installed. Node treats an empty `ca` as
 * none given and then trusts its whole default store, so an empty or truncated file (the first step of a rewrite
 * that is not atomic, an empty `ca.crt` in a Kubernetes secret) let in any client with a certificate from a public
 * CA (found by review). exporter-toolkit fails closed there; this refuses the file with the reason instead.
 *
 * OpenSSL also checks a client's chain up to a certificate that signs itself: an intermediate CA alone in the file
 * admits nobody (Go ends a chain at any certificate of the pool, so the same file works under exporter-toolkit). A
 * file none of whose certificates can end a chain is refused; one with some that cannot is taken with a warning.
 */
import { X509Certificate } from 'node:crypto';
import { stripControls } from '../util/controls.js';
import { readPemCertificates } from '../util/pem.js';

/** Signature checks of the walk below: past this much time the rest is not checked (a hostile file took 47 s). */
const CHECK_BUDGET_MS = 250;
/** How much of a certificate's name a message quotes. */
const NAME_CHARS = 120;

export interface ClientCaCheck {
  /** Why the file cannot be used; undefined when it can. */
  problem?: string;
  /** Certificates in it that can admit nobody, one sentence each. */
  warnings: string[];
  /**
   * What the server installs when the file can be used: the certificates this check read, written out again. Not the
   * file: OpenSSL reads a file in ways no check can mirror whole (a line cut at 254 bytes, text after a CR, a block
   * that fails stopping the rest), so a file the check passed admitted nobody, or a certificate it said was not read
   * was trusted (found by review). Installed as read, the check and the server cannot disagree.
   */
  certificates?: string;
}

/** A certificate's subject or issuer name, one line without controls, and bounded (it may be long). */
function printable(name: string): string {
  const line = stripControls(name.replace(/\n+/g, ', '));
  return line.length > NAME_CHARS ? `${line.slice(0, NAME_CHARS)}…` : line;
}

/** More is no client CA bundle (a system bundle holds ~150), and the check's work grows with it. */
export const MAX_CLIENT_CA_CERTIFICATES = 1000;
/** Issuers of one name a certificate's signature is tried against (repeated names are a hostile file's, not a CA's). */
const ISSUERS_TRIED = 8;

/** A name as OpenSSL compares them: case and runs of spaces do not count. */
function canonical(name: string): string {
  return name
    .split('\n')
    .map((part) => part.trim().replace(/\s+/g, ' ').toLowerCase())
    .join('\n');
}

export function checkClientCa(text: string, now = Date.now()): ClientCaCheck {
  const read = readPemCertificates(text, MAX_CLIENT_CA_CERTIFICATES);
  if ('problem' in read) {
    // Empty, it is no safe default: Node would then trust its whole default store.
    return { problem: read.empty ? `${read.problem}: an empty client CA would have let in clients of every public CA` : read.problem, warnings: [] };
  }
  // Not read by OpenSSL, so not by this check either: said, not refused (a comment may quote the line; found by
  // review). A file of nothing else holds no certificate, and that is refused above.
  const skipped = read.misplaced
    ? ['client_ca_file: a "-----BEGIN" line that does not start its line (indented, or after other text) is not read, as OpenSSL does not read it']
    : [];
  const byFingerprint = new Map<string, X509Certificate>();
  // The same certificate twice is one: a file that repeats one made the check's work grow with the square.
  for (const cert of read.certificates) byFingerprint.set(cert.fingerprint256, cert);
  const certs = [...byFingerprint.values()];
  // A certificate ends a chain when it signs itself, or when one in the file that does issued it (in as many steps):
  // walked from the roots down by issuer name, so a bundle of thousands costs a pass, not one per step of a chain.
  const byIssuer = new Map<string, X509Certificate[]>();
  for (const cert of certs) {
    const key = canonical(cert.issuer);
    const issued = byIssuer.get(key);
    if (issued === undefined) byIssuer.set(key, [cert]);
    else issued.push(cert);
  }
  // Signs itself by name (as OpenSSL compares names: `CN=R85 Root` issued `CN=r85 root`) and signature, whatever its
  // key usage: a self-signed client certificate pinned as its own CA is trusted as itself (checkIssued would also
  // ask for the right to sign certificates).
  // By name and own signature: a certificate under a root's name signed by another key (a cross-signed root, in a
  // CA's rollover) is no anchor to OpenSSL, whose key identifiers tell them apart, and a file of it admitted nobody
  // (found by review). A root whose own signature is broken, which OpenSSL would still trust, is refused the same.
  // A signature check costs what its key makes it cost (an RSA key with a 3,071-bit exponent, 6 ms): bounded in time
  // as well as in count, since it runs when a connection finds the file changed (found by review), the roots' own
  // checks included (1,000 slow self-signed roots took 6.9 s before they were; found by review). Past the budget a
  // root by name is taken unchecked: the server checks every client's chain itself, so what the budget leaves out is
  // a warning this check could not give, never a client let in.
  const started = performance.now();
  const overBudget = (): boolean => performance.now() - started > CHECK_BUDGET_MS;
  let unchecked = 0;
  let uncheckedRoots = 0;
  const roots = certs.filter((cert) => {
    if (canonical(cert.subject) !== canonical(cert.issuer)) return false;
    if (!overBudget()) return cert.verify(cert.publicKey);
    uncheckedRoots++;
    return true;
  });
  // A CA outside its validity admits nobody: OpenSSL checks the time of every certificate of a chain, its root too
  // (a CA expiring is ordinary operations; found by review).
  const inTime = (cert: X509Certificate): boolean => Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
  const anchored = new Set(roots.filter(inTime));
  const tried = new Map<X509Certificate, number>();
  const walk = [...anchored];
  for (let issuer = walk.pop(); issuer !== undefined; issuer = walk.pop()) {
    for (const cert of byIssuer.get(canonical(issuer.subject)) ?? []) {
      if (anchored.has(cert) || !inTime(cert)) continue;
      if (overBudget()) {
        unchecked++;
        continue;
      }
      const attempts = (tried.get(cert) ?? 0) + 1;
      if (attempts > ISSUERS_TRIED) continue;
      tried.set(cert, attempts);
      if (!cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) continue;
      anchored.add(cert);
      walk.push(cert);
    }
  }
  const outOfTime = (cert: X509Certificate): string =>
    `${printable(cert.subject)} is valid from ${cert.validFrom} to ${cert.validTo} only`;
  const why = (cert: X509Certificate): string =>
    inTime(cert) ? `${printable(cert.subject)} is not a root and its issuer (${printable(cert.issuer)}) is not in the file, or not valid now` : outOfTime(cert);
  if (anchored.size === 0) {
    const root = roots[0];
    return {
      problem:
        root !== undefined
          ? `no root certificate in it is valid now (${outOfTime(root)}): it admits nobody`
          : `holds no root certificate (one that signs itself): the server checks a client's chain up to a root in this file, so an intermediate CA alone admits nobody; ${why(certs[0] as X509Certificate)}; add the root`,
      warnings: [],
    };
  }
  const certificates = certs.map((cert) => cert.toString()).join('');
  // Past the budget, what was not checked is not called loose: one line says so instead.
  if (unchecked > 0 || uncheckedRoots > 0) {
    const notChecked = certs.length - anchored.size + uncheckedRoots;
    return {
      certificates,
      warnings: [
        ...skipped,
        `client_ca_file: the check stopped after ${String(CHECK_BUDGET_MS)} ms; ${String(notChecked)} of ${String(certs.length)} certificates were not all checked (the server still checks every client's chain)`,
      ],
    };
  }
  const loose = certs.filter((cert) => !anchored.has(cert)).map((cert) => `client_ca_file: ${why(cert)}: clients it issued are refused`);
  return { warnings: [...skipped, ...loose], certificates };
}
