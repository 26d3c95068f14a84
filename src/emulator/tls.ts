/**
 * The certificates routers serve. Without options: one self-signed EC certificate for 127.0.0.1, ::1 and
 * localhost, shared by every emulated router and its own CA, so clients trust exactly it (the spec's
 * "import the self-signed CA", §5) instead of disabling verification; it is new at every start.
 *
 * For a lab that outlives a restart, `tlsFolder(dir, names)` keeps a CA and a server certificate in a
 * folder: the CA is reused while it is valid, and the server certificate is reused while the CA signed it,
 * it is valid and it covers the requested names, or issued again by the same CA otherwise. A config whose
 * `ca_file` points at the folder's ca.pem keeps working across restarts, even when the names change.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  cert: string;
  key: string;
}

const DAY_MS = 86_400_000;
/** What every certificate here covers; a specific --host is added to it. */
export const DEFAULT_TLS_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

type AltName = { type: 2; value: string } | { type: 7; ip: string };

function altNames(names: readonly string[]): AltName[] {
  return names.map((name): AltName => (isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name }));
}

function validity(days: number): { notBeforeDate: Date; notAfterDate: Date } {
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  return { notBeforeDate, notAfterDate: new Date(notBeforeDate.getTime() + days * DAY_MS) };
}

const KEY = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;

export async function selfSignedTls(names: readonly string[] = DEFAULT_TLS_NAMES): Promise<TlsMaterial> {
  const pems = await generate([{ name: 'commonName', value: 'routeros-emulator' }], {
    ...KEY,
    ...validity(825),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: altNames(names) },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function newCa(): Promise<TlsMaterial> {
  const pems = await generate([{ name: 'commonName', value: 'routeros-emulator lab CA' }], {
    ...KEY,
    ...validity(3650),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function newServerCert(ca: TlsMaterial, names: readonly string[]): Promise<TlsMaterial> {
  const pems = await generate([{ name: 'commonName', value: 'routeros-emulator' }], {
    ...KEY,
    ...validity(825),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: altNames(names) },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** Why a certificate and key cannot be reused, or undefined when they can. */
function unusable(pair: TlsMaterial, check: (cert: X509Certificate) => string | undefined): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.cert);
    if (!cert.checkPrivateKey(createPrivateKey(pair.key))) return 'its key does not match it';
  } catch {
    return 'it does not parse';
  }
  // A day of margin: a lab left running overnight must not see its certificate expire.
  if (Date.parse(cert.validTo) < Date.now() + DAY_MS) return `it expires ${cert.validTo}`;
  if (Date.parse(cert.validFrom) > Date.now()) return `it is not valid before ${cert.validFrom}`;
  return check(cert);
}

function readPair(certFile: string, keyFile: string): TlsMaterial | undefined {
  if (!existsSync(certFile) || !existsSync(keyFile)) return undefined;
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

function writePair(pair: TlsMaterial, certFile: string, keyFile: string): void {
  writeFileSync(certFile, pair.cert);
  writeFileSync(keyFile, pair.key, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
}

export interface TlsFolder extends TlsMaterial {
  /** The CA to trust: `<dir>/ca.pem`. */
  caFile: string;
  /** What was made anew and why, for the start-up message; empty when everything was reused. */
  notes: string[];
}

/** Reuses or creates `ca.pem`/`ca-key.pem` and `cert.pem`/`key.pem` in `dir` (created, mode 0700, if missing). */
export async function tlsFolder(dir: string, names: readonly string[]): Promise<TlsFolder> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = { ca: join(dir, 'ca.pem'), caKey: join(dir, 'ca-key.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  const notes: string[] = [];
  let ca = readPair(files.ca, files.caKey);
  const caProblem = ca === undefined ? undefined : unusable(ca, (cert) => (cert.ca ? undefined : 'it is not a CA'));
  if (ca === undefined || caProblem !== undefined) {
    notes.push(ca === undefined ? `created a CA in ${files.ca}` : `made a new CA in ${files.ca} (${caProblem ?? ''}): clients must trust it again`);
    ca = await newCa();
    writePair(ca, files.ca, files.caKey);
  }
  const caCert = new X509Certificate(ca.cert);
  let server = readPair(files.cert, files.key);
  const serverProblem =
    server === undefined
      ? 'there is none'
      : unusable(server, (cert) => {
          if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return 'the CA did not sign it';
          const missing = names.filter((name) => (isIP(name) === 0 ? cert.checkHost(name) : cert.checkIP(name)) === undefined);
          return missing.length === 0 ? undefined : `it does not cover ${missing.join(', ')}`;
        });
  if (server === undefined || serverProblem !== undefined) {
    if (server !== undefined) notes.push(`issued a new server certificate from the same CA (${serverProblem ?? ''})`);
    server = await newServerCert(ca, names);
    writePair(server, files.cert, files.key);
  }
  // Serve the chain, so a client that trusts only ca.pem can build it.
  return { cert: `${server.cert.trimEnd()}\n${ca.cert}`, key: server.key, caFile: files.ca, notes };
}
