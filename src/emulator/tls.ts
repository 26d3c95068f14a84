/**
 * The certificate routers serve when none is given: one self-signed EC certificate for 127.0.0.1,
 * ::1 and localhost, shared by every emulated router. It is its own CA, so clients trust exactly
 * it (the spec's "import the self-signed CA", §5) instead of disabling verification.
 */
import { generate } from 'selfsigned';

export interface TlsMaterial {
  cert: string;
  key: string;
}

export async function selfSignedTls(): Promise<TlsMaterial> {
  const notBeforeDate = new Date(Date.now() - 86_400_000);
  const pems = await generate([{ name: 'commonName', value: 'routeros-emulator' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 825 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
