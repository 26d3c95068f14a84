/**
 * A name outside ASCII in a fix, from the router's bytes to the command: RouterOS keeps names as bytes in whatever
 * code page they were typed in and sends them unconverted, so `wg-büro` arrives as `C3 BC` in a UTF-8 reply or `FC`
 * in one that is not. The reply's reading is kept on its records (routeros/reply-text.ts), and a fix writes the very
 * bytes the router sent, read back by the console's rules (console-value.ts). Before, such a name lost every fix
 * line that named it ("… whose bytes on the router the reply does not tell"), though the reply told.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseJsonBody, parseJsonBodyInSlices, SLICED_FROM_BYTES } from '../../src/routeros/body.js';
import { finish } from '../../src/util/slices.js';
import { recordListSteps, type RouterRecord } from '../../src/routeros/records.js';
import { replyDecoding } from '../../src/routeros/reply-text.js';
import { mapWireguardSetup } from '../../src/collectors/wireguard-setup.js';
import type { SetupRecords } from '../../src/analysis/setup-audit.js';
import { routerLabel } from '../../src/metrics/family.js';
import { expectConsoleLines, readConsoleValue } from './console-value.js';

const SEED = Number(process.env['FC_SEED'] ?? 20261205);

/** A JSON list reply whose string values are these bytes (`"` and `\` escaped, as RouterOS writes them), parsed as the client parses one. */
function reply(records: Record<string, Uint8Array | string>[]): RouterRecord[] {
  const chunks: Buffer[] = [Buffer.from('[')];
  records.forEach((record, index) => {
    chunks.push(Buffer.from(index === 0 ? '{' : ',{'));
    Object.entries(record).forEach(([key, value], at) => {
      const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
      const escaped = Buffer.from([...bytes].flatMap((byte) => (byte === 0x22 || byte === 0x5c ? [0x5c, byte] : [byte])));
      chunks.push(Buffer.from(`${at === 0 ? '' : ','}"${key}":"`), escaped, Buffer.from('"'));
    });
    chunks.push(Buffer.from('}'));
  });
  chunks.push(Buffer.from(']'));
  return finish(recordListSteps(parseJsonBody(Buffer.concat(chunks), 'GET /rest/x'), 'GET /rest/x'));
}

/** wg `name` (its bytes) with no address, routing 192.168.20.0/24, whose packets input and forward drop (forward over `!list`). */
function router(name: Uint8Array, list: Uint8Array): SetupRecords {
  return {
    interfaces: reply([{ '.id': '*9', name, 'listen-port': '13231', disabled: 'false' }]),
    peers: reply([{ '.id': '*1', interface: name, 'allowed-address': '10.99.0.2/32,192.168.20.0/24', 'public-key': 'k', disabled: 'false' }]),
    addresses: reply([{ '.id': '*3', address: '203.0.113.2/30', interface: 'ether1', disabled: 'false' }]),
    routes: reply([{ '.id': '*4', 'dst-address': '0.0.0.0/0', gateway: '203.0.113.1', distance: '1' }]),
    filter: reply([
      { '.id': '*2', chain: 'input', action: 'drop' },
      { '.id': '*5', chain: 'forward', action: 'drop', 'in-interface-list': Buffer.concat([Buffer.from('!'), list]) },
    ]),
  };
}

function checksOf(records: SetupRecords) {
  const setup = mapWireguardSetup(records, routerLabel('hq'), 0).data.interfaces[0];
  if (setup === undefined) throw new Error('no interface audited');
  return Object.fromEntries(setup.checks.map((check) => [check.check, check]));
}

/** `key=value` of a command, split where the console splits (spaces outside quotes). */
function argsOf(command: string): Map<string, string> {
  const words = command.match(/(?:[^\s"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  return new Map(words.flatMap((word) => (word.includes('=') ? [[word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] as [string, string]] : [])));
}

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

describe("a reply's reading, kept on its records", () => {
  it('is UTF-8 for a reply that is, windows-1252 for one that is not, parsed whole or in slices', async () => {
    expect(replyDecoding(reply([{ name: Buffer.from('wg-büro', 'utf8') }]))).toBe('utf8');
    expect(replyDecoding(reply([{ name: Buffer.from('wg-b\u00fcro', 'latin1') }]))).toBe('cp1252');
    const big = (name: Buffer): Buffer => Buffer.concat([Buffer.from('[{"name":"'), name, Buffer.from('"}'), Buffer.from(`,{"name":"${'x'.repeat(100)}"}`.repeat(SLICED_FROM_BYTES / 100)), Buffer.from(']')]);
    const sliced = async (name: Buffer) => finish(recordListSteps(await parseJsonBodyInSlices(big(name), 'GET /rest/x'), 'GET /rest/x'));
    expect(replyDecoding(await sliced(Buffer.from('wg-büro', 'utf8')))).toBe('utf8');
    expect(replyDecoding(await sliced(Buffer.from('wg-b\u00fcro', 'latin1')))).toBe('cp1252');
    // Records made otherwise (a test's, the emulator's before the wire) are of no known reading.
    expect(replyDecoding([{ name: 'wg-büro' }])).toBeUndefined();
  });
});

describe('a fix naming `wg-büro`', () => {
  it.each<[string, Buffer, string]>([
    ['its UTF-8 bytes, from a UTF-8 reply', Buffer.from('wg-büro', 'utf8'), 'interface="wg-b\\C3\\BCro"'],
    ['its windows-1252 byte, from a reply that is not UTF-8', Buffer.from('wg-b\u00fcro', 'latin1'), 'interface="wg-b\\FCro"'],
  ])('is offered, naming %s', (_, name, written) => {
    const checks = checksOf(router(name, Buffer.from('TRUSTED')));
    expect(checks['address']?.fix).toContain(written);
    expect(checks['address']?.detail).not.toContain('no fix');
    expect(checks['route']?.fix).toContain(`gateway=${written.slice('interface='.length)}`);
    expect(checks['firewall_forward']?.fix).toContain(`in-${written}`);
  });
});

describe('any name a router may hold, as bytes', () => {
  it('is written into every fix as exactly those bytes, read as the console reads them, or the fix is left out and says why', () => {
    const byte = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constantFrom(0x0a, 0x09, 0x1b, 0x22, 0x5c, 0x24, 0x3f, 0x3b, 0x23, 0x5b, 0x5d, 0x7b, 0x7d, 0x21, 0x2a));
    const utf8 = fc.constantFrom('büro', 'офис', '東京', '😀', '€', '\u202e', '\u00a0').map((text) => [...Buffer.from(text, 'utf8')]);
    const nameBytes = fc.array(fc.oneof(byte.map((one) => [one]), utf8), { minLength: 1, maxLength: 8 }).map((parts) => Uint8Array.from(parts.flat()));
    fc.assert(
      fc.property(nameBytes, nameBytes, (name, list) => {
        const records = router(name, list);
        const checks = checksOf(records);
        // Known bytes: only RouterOS's own readings of a name (`!`, an id) leave the tunnel's address fix out.
        const text = records.interfaces[0]?.['name'] ?? '';
        if (!text.startsWith('!') && !/^\*[0-9A-Fa-f]+$/.test(text)) expect(checks['address']?.fix, JSON.stringify(text)).toBeDefined();
        for (const check of Object.values(checks)) {
          expect(check.ok).toBe(false);
          if (check.fix === undefined) expect(check.noFix).toMatch(/^no fix is offered: /);
          if (check.fix !== undefined) expectConsoleLines(check.fix);
          for (const command of (check.fix ?? '').split('\n').filter((line) => line !== '' && !line.startsWith('#'))) {
            const args = argsOf(command);
            for (const key of ['interface', 'in-interface', 'out-interface', 'gateway']) {
              const value = args.get(key);
              if (value !== undefined) expect(hex(readConsoleValue(value)), `${key}=${value} in ${command}`).toBe(hex(name));
            }
            const spared = args.get('in-interface-list');
            if (spared !== undefined) expect(hex(readConsoleValue(spared)), `in-interface-list=${spared}`).toBe(hex(list));
            const comment = args.get('comment');
            if (comment !== undefined) expect(readConsoleValue(comment), comment).toBeDefined();
          }
        }
      }),
      { seed: SEED, numRuns: 1_000 },
    );
  });
});

describe('a reply that writes a character beyond ASCII as a JSON escape', () => {
  it('is of no known reading (RouterOS sends bytes as they are; something re-encoded it), whole or in slices', async () => {
    const parsed = (body: string) => finish(recordListSteps(parseJsonBody(Buffer.from(body, 'utf8'), 'GET /rest/x'), 'GET /rest/x'));
    expect(replyDecoding(parsed('[{"name":"wg-b\\u00fcro"}]'))).toBeUndefined();
    expect(replyDecoding(parsed('[{"name":"wg-\\u043e"}]'))).toBeUndefined();
    // An escaped ASCII character or control tells nothing of bytes: the reply's reading stands.
    expect(replyDecoding(parsed('[{"name":"wg\\u0041","c":"\\u001b"}]'))).toBe('utf8');
    const big = Buffer.from(`[{"name":"wg-b\\u00fcro"}${`,{"name":"${'x'.repeat(100)}"}`.repeat(SLICED_FROM_BYTES / 100)}]`, 'utf8');
    expect(replyDecoding(finish(recordListSteps(await parseJsonBodyInSlices(big, 'GET /rest/x'), 'GET /rest/x')))).toBeUndefined();
    // Its names are then written only when their text tells their bytes: `wg-büro` does not.
    const records = router(Buffer.from('wg0'), Buffer.from('LAN'));
    const escaped = { ...records, interfaces: parsed('[{".id":"*9","name":"wg-b\\u00fcro","listen-port":"13231"}]'), peers: parsed('[{".id":"*1","interface":"wg-b\\u00fcro","allowed-address":"10.99.0.2/32","public-key":"k"}]') };
    expect(checksOf(escaped)['address']?.fix).toBeUndefined();
  });
});
