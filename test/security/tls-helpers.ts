/** Certificates made for a test, and HTTPS requests that report which certificate the server showed. */
import { createPublicKey } from 'node:crypto';
import { request } from 'node:https';
import { generate } from 'selfsigned';

export interface Pem {
  cert: string;
  key: string;
}

export interface CertOptions {
  commonName?: string;
  dns?: string[];
  ips?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** Signs with this CA instead of self-signing. */
  ca?: Pem;
  /** A CA certificate (can sign others). */
  isCa?: boolean;
  /** For client authentication instead of a server. */
  client?: boolean;
  /** Uses this certificate's key pair instead of a new one (with `ca` the same, a certificate that signs itself). */
  keyOf?: Pem;
}

const DAY = 86_400_000;

export async function makeCert(options: CertOptions = {}): Promise<Pem> {
  const notBeforeDate = options.notBefore ?? new Date(Date.now() - DAY);
  const altNames = [
    ...(options.dns ?? (options.ips === undefined ? ['localhost'] : [])).map((value) => ({ type: 2 as const, value })),
    ...(options.ips ?? (options.dns === undefined ? ['127.0.0.1'] : [])).map((ip) => ({ type: 7 as const, ip })),
  ];
  const pems = await generate([{ name: 'commonName', value: options.commonName ?? 'routeros-exporter-test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: options.notAfter ?? new Date(notBeforeDate.getTime() + 30 * DAY),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.keyOf === undefined
      ? {}
      : { keyPair: { privateKey: options.keyOf.key, publicKey: createPublicKey(options.keyOf.key).export({ type: 'spki', format: 'pem' }).toString() } }),
    // A CA carries no extended key usage: one would restrict every certificate it signs to that purpose.
    extensions:
      options.isCa === true
        ? [
            { name: 'basicConstraints', cA: true, critical: true },
            { name: 'keyUsage', digitalSignature: true, keyCertSign: true, cRLSign: true, critical: true },
          ]
        : [
            { name: 'basicConstraints', cA: false, critical: true },
            { name: 'keyUsage', digitalSignature: true, critical: true },
            { name: 'extKeyUsage', serverAuth: options.client !== true, clientAuth: options.client === true },
            { name: 'subjectAltName', altNames },
          ],
  });
  return { cert: pems.cert, key: pems.private };
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string;
}

export interface HttpsRequest {
  ca: string;
  method?: string;
  /** user:password, sent as HTTP Basic. */
  auth?: string;
  /** A client certificate. */
  client?: Pem;
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
}

/** One request on a fresh connection (no agent), so every call sees the server's current certificate. */
export function httpsGet(url: string, options: HttpsRequest): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        ca: options.ca,
        ...(options.auth === undefined ? {} : { headers: { authorization: `Basic ${Buffer.from(options.auth).toString('base64')}` } }),
        ...(options.client === undefined ? {} : { cert: options.client.cert, key: options.client.key }),
        ...(options.maxVersion === undefined ? {} : { maxVersion: options.maxVersion }),
      },
      (res) => {
        const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, fingerprint }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
