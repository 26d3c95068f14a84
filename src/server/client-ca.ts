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

/** PEM blocks of type CERTIFICATE, the only type Go's AppendCertsFromPEM takes too. */
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;
/** How much of a certificate's name a message quotes. */
const NAME_CHARS = 120;

export interface ClientCaCheck {
  /** Why the file cannot be used; undefined when it can. */
  problem?: string;
  /** Certificates in it that can admit nobody, one sentence each. */
  warnings: string[];
}

/** A certificate's subject or issuer name, one line without controls, and bounded (it may be long). */
function printable(name: string): string {
  const line = stripControls(name.replace(/\n+/g, ', '));
  return line.length > NAME_CHARS ? `${line.slice(0, NAME_CHARS)}…` : line;
}

export function checkClientCa(text: string): ClientCaCheck {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    return {
      problem: 'holds no certificate (a PEM "BEGIN CERTIFICATE" block): an empty client CA would have let in clients of every public CA',
      warnings: [],
    };
  }
  const certs: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certs.push(new X509Certificate(block));
    } catch {
      return { problem: `its certificate ${String(index + 1)} of ${String(blocks.length)} cannot be read`, warnings: [] };
    }
  }
  // A certificate ends a chain when it signs itself, or when one in the file that does issued it (in as many steps):
  // walked from the roots down by issuer name, so a bundle of thousands costs a pass, not one per step of a chain.
  const byIssuer = new Map<string, X509Certificate[]>();
  for (const cert of certs) {
    const issued = byIssuer.get(cert.issuer);
    if (issued === undefined) byIssuer.set(cert.issuer, [cert]);
    else issued.push(cert);
  }
  // Signs itself by name and signature, whatever its key usage: a self-signed client certificate pinned as its own CA
  // is trusted as itself (X509Certificate#checkIssued would also ask for the right to sign certificates).
  const anchored = new Set(certs.filter((cert) => cert.subject === cert.issuer && cert.verify(cert.publicKey)));
  const walk = [...anchored];
  for (let issuer = walk.pop(); issuer !== undefined; issuer = walk.pop()) {
    for (const cert of byIssuer.get(issuer.subject) ?? []) {
      if (anchored.has(cert) || !cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) continue;
      anchored.add(cert);
      walk.push(cert);
    }
  }
  const loose = certs.filter((cert) => !anchored.has(cert));
  const why = (cert: X509Certificate): string =>
    `${printable(cert.subject)} is not a root and its issuer (${printable(cert.issuer)}) is not in the file`;
  if (anchored.size === 0) {
    return {
      problem: `holds no root certificate (one that signs itself): the server checks a client's chain up to a root in this file, so an intermediate CA alone admits nobody; ${why(certs[0] as X509Certificate)}; add the root`,
      warnings: [],
    };
  }
  return { warnings: loose.map((cert) => `client_ca_file: ${why(cert)}: clients it issued are refused; add its root`) };
}
