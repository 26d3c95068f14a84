/**
 * The client CA check (src/server/client-ca.ts) against OpenSSL, over generated bundles: any mix of a root, an
 * intermediate it issued, another root and an expired one, in any order and number, each block written as files
 * are found (CRLF, comments before it, text quoting a BEGIN line, blanks after BEGIN, an indented BEGIN that
 * OpenSSL does not read), with noise lines and a byte-order mark. What the check lets the server install must admit
 * exactly the clients a careful reading of the file says it should, in a real TLS handshake, and what it says in
 * its warnings must name what admits nobody. Before this, the class had case tests only.
 */
import fc from 'fast-check';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkClientCa } from '../../src/server/client-ca.js';
import { makeCert, type Pem } from './tls-helpers.js';

const DAY = 86_400_000;
type CaName = 'root' | 'intermediate' | 'other' | 'expired';
type Decoration = 'plain' | 'crlf' | 'comment' | 'quoted-begin' | 'blank-after-begin' | 'indented';

let cas: Record<CaName, Pem>;
/** A client certificate issued by each CA. */
let clients: Record<CaName, Pem>;
let server: Pem;

beforeAll(async () => {
  const root = await makeCert({ commonName: 'Generated Root', isCa: true });
  const other = await makeCert({ commonName: 'Generated Other Root', isCa: true });
  const expired = await makeCert({
    commonName: 'Generated Expired Root',
    isCa: true,
    notBefore: new Date(Date.now() - 60 * DAY),
    notAfter: new Date(Date.now() - 30 * DAY),
  });
  const intermediate = await makeCert({ commonName: 'Generated Intermediate', isCa: true, ca: root });
  cas = { root, intermediate, other, expired };
  const issued = await Promise.all(
    (Object.keys(cas) as CaName[]).map(async (name) => [name, await makeCert({ commonName: `client of ${name}`, client: true, ca: cas[name] })] as const),
  );
  clients = Object.fromEntries(issued) as Record<CaName, Pem>;
  server = await makeCert();
}, 60_000);

interface Entry {
  ca: CaName;
  decoration: Decoration;
  /** A line of other text written before the block. */
  noise: string | undefined;
}

/** One certificate block as it might be found in a file. */
function written(entry: Entry): string {
  const pem = cas[entry.ca].cert.trimEnd();
  const before = entry.noise === undefined ? '' : `${entry.noise}\n`;
  switch (entry.decoration) {
    case 'plain':
      return `${before}${pem}\n`;
    case 'crlf':
      return `${before}${pem.replace(/\n/g, '\r\n')}\r\n`;
    case 'comment':
      return `${before}# ${entry.ca}: issued for the scrapers\n${pem}\n`;
    case 'quoted-begin':
      return `${before}subject lines below follow -----BEGIN CERTIFICATE----- as the tool printed them\n${pem}\n`;
    case 'blank-after-begin':
      return `${before}${pem.replace('-----BEGIN CERTIFICATE-----', '-----BEGIN CERTIFICATE-----  \t')}\n`;
    case 'indented':
      return `${before}${pem.replace('-----BEGIN CERTIFICATE-----', '  -----BEGIN CERTIFICATE-----')}\n`;
  }
}

/** Whether a server with `ca` as its client CA admits `client` in a real handshake. */
async function admits(ca: string, client: Pem): Promise<boolean> {
  const tlsServer = createServer({ key: server.key, cert: server.cert, ca, requestCert: true, rejectUnauthorized: true }, (socket) => {
    socket.end('admitted');
  });
  tlsServer.on('tlsClientError', () => {});
  tlsServer.listen(0, '127.0.0.1');
  await once(tlsServer, 'listening');
  try {
    const socket = connect({
      host: '127.0.0.1',
      port: (tlsServer.address() as AddressInfo).port,
      servername: 'localhost',
      ca: server.cert,
      cert: client.cert,
      key: client.key,
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    await new Promise<void>((resolve) => {
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
    return text === 'admitted';
  } finally {
    tlsServer.close();
  }
}

const entry: fc.Arbitrary<Entry> = fc.record({
  ca: fc.constantFrom<CaName>('root', 'intermediate', 'other', 'expired'),
  decoration: fc.constantFrom<Decoration>('plain', 'crlf', 'comment', 'quoted-begin', 'blank-after-begin', 'indented'),
  // Text that is no part of a PEM block (any characters but a line break and a dash run), or none.
  noise: fc.option(fc.string({ maxLength: 40 }).filter((text) => !/[\n-]/.test(text)), { nil: undefined }),
});

describe('the client CA check against OpenSSL, over generated bundles', () => {
  it('installs what admits exactly the clients the file vouches for, or refuses the file when it vouches for none', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 6 }), fc.boolean(), async (entries, bom) => {
        const text = `${bom ? '\uFEFF' : ''}${entries.map(written).join('')}`;
        const checked = checkClientCa(text);
        // The careful reading: a block behind an indented BEGIN line is not read (OpenSSL does not read it).
        const read = new Set(entries.filter((e) => e.decoration !== 'indented').map((e) => e.ca));
        const expected: Record<CaName, boolean> = {
          root: read.has('root'),
          intermediate: read.has('root') && read.has('intermediate'),
          other: read.has('other'),
          expired: false,
        };
        if (!read.has('root') && !read.has('other')) {
          expect(checked.problem).toBeDefined();
          expect(checked.certificates).toBeUndefined();
          return;
        }
        expect(checked.problem).toBeUndefined();
        const installed = checked.certificates as string;
        expect(installed).toContain('-----BEGIN CERTIFICATE-----');
        for (const name of Object.keys(expected) as CaName[]) {
          expect({ client: name, admitted: await admits(installed, clients[name]) }).toEqual({ client: name, admitted: expected[name] });
        }
        // What admits nobody is said, by name.
        const warnings = checked.warnings.join('\n');
        if (read.has('intermediate') && !read.has('root')) expect(warnings).toContain('Generated Intermediate');
        if (read.has('expired')) expect(warnings).toContain('Generated Expired Root');
        if (entries.some((e) => e.decoration === 'indented' || e.decoration === 'quoted-begin')) expect(warnings).toMatch(/does not start its line/);
        if (!read.has('expired') && (read.has('root') || !read.has('intermediate')) && !entries.some((e) => e.decoration === 'indented' || e.decoration === 'quoted-begin')) {
          expect(checked.warnings).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
