/**
 * The set-up audit's fixes are commands an operator pastes into a RouterOS console: each must mean exactly the
 * entry it names (the tunnel, an interface or list a rule names), or not be offered, the detail saying why. Names
 * come from a reply as the exporter decoded it (UTF-8, or windows-1252 when the reply was not UTF-8), and a hostile
 * router may send any: lone surrogates, controls, `$` and `?`, non-ASCII text whose bytes the text does not tell,
 * `!` (RouterOS's "not"), an id's `*5`, an address, a registered secret, megabytes. Read back by the console's
 * rules (console-value.ts), a written value is the router's bytes for the name, whichever way the reply was read.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cliValue } from '../../src/analysis/setup-fixes.js';
import { auditSetup, type SetupRecords } from '../../src/analysis/setup-audit.js';
import { decodeCp1252 } from '../../src/util/cp1252.js';
import { redactSecretsDistinct, registerSecret } from '../../src/util/redact.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { testRouter } from '../helpers/config.js';
import { T0, setup, systemOk } from './snapshots.js';
import { expectConsoleLines, readConsoleCommand, readConsoleValue, routerBytes } from './console-value.js';

const SEED = Number(process.env['FC_SEED'] ?? 20261205);
/** A password the exporter knows (registered as a config load does), which a router's name may hold. */
const SECRET = 'Hunter2-setup-fix';
registerSecret(SECRET);
const USES = ['text', 'name', 'gateway'] as const;
type Use = (typeof USES)[number];
const write = cliValue as (value: string, use?: Use) => string | undefined;

/** One character a hostile router's name may hold. */
const hostileChar = fc.oneof(
  fc.constantFrom('\ud800', '\udfff', '\n', '\r', '\t', '\u0000', '\u001b', '\u007f', '\u009b', '\u202e', '\u2066', '\u200b', '\ufeff', '"', '\\', '$', '?', ';', ' ', '[', ']', '{', '}', '(', ')', ':', '/', '#', '!', '*', ',', '%', '@', '=', 'é', '€', 'ü', '\u0081', 'ж', '😀'),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
);
/** A name as a hostile string, or as a router's bytes read as the exporter reads a reply (UTF-8 if it is, else windows-1252). */
const hostileName = fc.oneof(
  fc.string({ unit: hostileChar, maxLength: 12 }),
  fc.array(fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0, max: 255 })), { maxLength: 12 }).chain((bytes) => {
    const buffer = Buffer.from(bytes);
    const utf8 = Buffer.from(buffer.toString('utf8'), 'utf8').equals(buffer);
    return fc.constantFrom(...(utf8 ? [buffer.toString('utf8'), decodeCp1252(buffer)] : [decodeCp1252(buffer)]));
  }),
  fc.constantFrom('', '!wg0', '*5', '*1F', '10.0.0.1', '10', 'fe80::1', 'a,b', 'wg%ether1', 'wg@main', 'yes', 'all', 'none', 'wg0\n/user add name=x group=full', SECRET, `wg-${SECRET}`, `[${SECRET}]`),
);

function addressLike(name: string): boolean {
  return /[,%@]/.test(name) || /^[0-9.]+$/.test(name) || (name.includes(':') && /^[0-9A-Fa-f:.]+$/.test(name));
}

describe('a name written into a fix', () => {
  it('is read back by the console as the router\'s bytes for it, whichever way its reply was read, or is not written', () => {
    fc.assert(
      fc.property(hostileName, fc.constantFrom(...USES), (name, use) => {
        const written = write(name, use);
        if (written === undefined) return;
        // Shown redacted in /health, it could not be pasted.
        expect(redactSecretsDistinct(name)).toBe(name);
        const read = readConsoleValue(written);
        expect(read, `${JSON.stringify(written)} is not one console value`).toBeDefined();
        const candidates = routerBytes(name);
        expect(candidates.length).toBeGreaterThan(0);
        for (const bytes of candidates) expect(Buffer.from(read as Uint8Array).toString('hex')).toBe(Buffer.from(bytes).toString('hex'));
        if (use === 'text') return;
        // As an entry's name: RouterOS would read these as another entry, "not" an entry, or an address.
        expect(name).not.toBe('');
        expect(name.startsWith('!')).toBe(false);
        expect(/^\*[0-9A-Fa-f]+$/.test(name)).toBe(false);
        if (use === 'gateway') expect(addressLike(name)).toBe(false);
      }),
      { seed: SEED, numRuns: 20_000 },
    );
  });

  it('is written whenever it is plain printable ASCII of a sane length that reads as no id, "not" or address', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 64 }), fc.constantFrom(...USES), (name, use) => {
        // eslint-disable-next-line no-control-regex
        fc.pre(!name.startsWith('!') && !/^\*[0-9A-Fa-f]+$/.test(name) && !addressLike(name) && !/[\u0000-\u001f\u007f]/.test(name));
        expect(write(name, use)).toBeDefined();
      }),
      { seed: SEED, numRuns: 2_000 },
    );
  });
});

/** Each `key=value` word of a command, split where the console splits them (spaces outside quotes). */
function argsOf(command: string): Map<string, string> {
  const words = command.match(/(?:[^\s"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  return new Map(words.flatMap((word) => (word.includes('=') ? [[word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] as [string, string]] : [])));
}

/** A tunnel `name` with no address, routing 192.168.20.0/24, whose packets input drops and forward drops on `list`. */
function hostileRouter(name: string, list: string): SetupRecords {
  return {
    interfaces: [{ '.id': '*9', name, 'listen-port': '13231', disabled: 'false' }],
    peers: [{ '.id': '*1', interface: name, 'allowed-address': '10.99.0.2/32,192.168.20.0/24', 'public-key': 'k', disabled: 'false' }],
    addresses: [],
    routes: [],
    filter: [
      { '.id': '*2', chain: 'input', action: 'drop' },
      { '.id': '*3', chain: 'forward', action: 'drop', 'in-interface-list': `!${list}` },
    ],
  };
}

const NAMED = ['interface', 'in-interface', 'out-interface', 'gateway'];

describe("the audit's fixes for a hostile router's names", () => {
  it('name the tunnel and the spared list exactly, as the console reads them, or are not offered and say why', () => {
    fc.assert(
      fc.property(hostileName, hostileName, (name, list) => {
        fc.pre(list !== '' && list !== '!');
        for (const check of auditSetup(hostileRouter(name, list))[0]?.checks ?? []) {
          expect(check.ok).toBe(false);
          const noFix = (check as { noFix?: string }).noFix;
          if (check.fix === undefined) expect(noFix).toBeDefined();
          // Each line one command as the console's grammar reads it (or a note, after every command).
          if (check.fix !== undefined) expectConsoleLines(check.fix);
          for (const command of (check.fix ?? '').split('\n').filter((line) => line !== '' && !line.startsWith('#'))) {
            const args = argsOf(command);
            for (const [key, value] of args) {
              // Addresses, ports, ids and the placeholder the operator fills in are the audit's own words.
              if (!NAMED.includes(key) && key !== 'in-interface-list' && key !== 'comment') continue;
              const read = readConsoleValue(value);
              expect(read, `${key}=${value} of ${JSON.stringify(command)}`).toBeDefined();
              if (NAMED.includes(key)) for (const bytes of routerBytes(name)) expect(Buffer.from(read as Uint8Array).equals(bytes), `${key}=${value}`).toBe(true);
            }
            // The drop spares the list: the accept takes it, positively, by its exact bytes.
            const spared = args.get('in-interface-list');
            if (spared !== undefined) for (const bytes of routerBytes(list)) expect(Buffer.from(readConsoleValue(spared) as Uint8Array).equals(bytes)).toBe(true);
            if (check.check === 'firewall_forward' && command.includes('out-interface=')) expect(spared).toBeDefined();
          }
        }
      }),
      { seed: SEED, numRuns: 1_500 },
    );
  });

  it('a name of 64 KiB of quotes costs what a short one does: only the fix lines shown are written (one subnet took 0.17 s)', () => {
    const subnets = Array.from({ length: 20 }, (_, i) => `10.0.${i}.0/24`).join(',');
    const timed = (name: string): number => {
      const records = { ...hostileRouter(name, 'LAN'), peers: [{ '.id': '*1', interface: name, 'allowed-address': subnets, 'public-key': 'k' }] };
      const start = performance.now();
      auditSetup(records);
      return performance.now() - start;
    };
    timed('wg0');
    const short = timed('wg0');
    const long = timed('"'.repeat(65_536));
    expect(long).toBeLessThan(10 * short + 200);
  });
});

describe('a fix naming an entry whose name holds a registered secret', () => {
  const secret = SECRET;
  const router = testRouter({ collectors: { wireguard: false, wireguard_setup: true } });

  it('is never shown redacted (it could not be pasted): a fix leaves the name out, or none is offered and the detail says why', () => {
    const snapshot = setup(hostileRouter(`wg-${secret}`, 'TRUSTED'), T0);
    const health = evaluateRouter(router, [systemOk(), snapshot], T0 + 1_000, { wireguard: false, setup: true, pings: false }).health;
    const checks = health.interfaces.flatMap((entry) => entry.setup ?? []);
    expect(checks.filter((check) => !check.ok).map((check) => check.check).sort()).toEqual(['address', 'firewall_forward', 'firewall_input', 'route']);
    for (const check of checks) {
      expect(check.fix ?? '').not.toContain('REDACTED');
      expect(check.fix ?? '').not.toContain(secret);
      if (check.fix === undefined) expect(check.detail).toContain('redacts as a secret');
    }
    // The input accept names no interface: it stays, its comment without the name.
    expect(checks.find((check) => check.check === 'firewall_input')?.fix).toBe('/ip firewall filter add chain=input action=accept protocol=udp dst-port=13231 place-before=*2 comment="WireGuard port 13231"');
  });

  it('nor is one the redaction would change for a secret registered after the audit', () => {
    const snapshot = setup(hostileRouter('wg-late-secret-name', 'TRUSTED'), T0);
    registerSecret('late-secret');
    const health = evaluateRouter(router, [systemOk(), snapshot], T0 + 1_000, { wireguard: false, setup: true, pings: false }).health;
    for (const check of health.interfaces.flatMap((entry) => entry.setup ?? [])) {
      if (check.ok) continue;
      expect(check.fix ?? '').not.toContain('REDACTED');
      if (check.fix === undefined) expect(check.detail).toMatch(/redacts as a secret/);
    }
  });
});

describe('names a console would read otherwise', () => {
  it.each<[string, string]>([
    ['a lone surrogate (no bytes of the router stand for it)', 'wg\ud800a'],
    ['non-ASCII that may be UTF-8 or windows-1252 bytes', 'wg-büro'],
    ['a delimiter of the grammar, bare', 'wg:1'],
    ['"not"', '!wg0'],
    ["an entry's id", '*5'],
    ['nothing', ''],
  ])('%s: no value that reads as another entry', (_, name) => {
    for (const use of ['name', 'gateway'] as const) {
      const written = write(name, use);
      if (written === undefined) continue;
      const read = readConsoleValue(written);
      expect(read).toBeDefined();
      expect(routerBytes(name).every((bytes) => Buffer.from(read as Uint8Array).equals(bytes))).toBe(true);
      expect(/^$|^!|^\*[0-9A-Fa-f]+$/.test(name)).toBe(false);
    }
  });

  it.each(['10.0.0.1', '10', 'fe80::1', 'a,b', 'wg%ether1', 'wg@main'])('%s is no gateway name: a route would read an address, a list or a table', (name) => {
    expect(write(name, 'gateway')).toBeUndefined();
    const fix = auditSetup(hostileRouter(name, 'LAN'))[0]?.checks.find((check) => check.check === 'route');
    expect(fix?.fix).toBeUndefined();
    expect((fix as { noFix?: string }).noFix).toContain("route's gateway");
  });

  it('an ordinary name keeps every fix, written as before', () => {
    const checks = auditSetup(hostileRouter('wg0', 'TRUSTED'))[0]?.checks ?? [];
    expect(Object.fromEntries(checks.map((check) => [check.check, check.fix]))).toEqual({
      address: '/ip address add address=<tunnel-address>/<prefix-length> interface=wg0 comment="WireGuard wg0"',
      route: '/ip route add dst-address=192.168.20.0/24 gateway=wg0 comment="WireGuard wg0"',
      firewall_input: '/ip firewall filter add chain=input action=accept protocol=udp dst-port=13231 place-before=*2 comment="WireGuard wg0"',
      firewall_forward: [
        '/ip firewall filter add chain=forward action=accept src-address=192.168.20.0/24 in-interface=wg0 place-before=*3 comment="WireGuard wg0 from 192.168.20.0/24"',
        '/ip firewall filter add chain=forward action=accept dst-address=192.168.20.0/24 out-interface=wg0 in-interface-list=TRUSTED place-before=*3 comment="WireGuard wg0 to 192.168.20.0/24"',
      ].join('\n'),
    });
  });
});

describe('names a rule holds, read as they are', () => {
  // RouterOS compares names byte for byte: ` wg0` and `wg0 ` are other interfaces than `wg0` (a hostile router's, or
  // one typed so). Trimmed, a rule naming them was judged and fixed as if it named `wg0` (a hostile-router review).
  const tunnel = (filter: SetupRecords['filter']): SetupRecords => ({
    ...hostileRouter('wg0', 'LAN'),
    addresses: [{ '.id': '*1', address: '10.99.0.1/24', interface: 'wg0', disabled: 'false' }],
    routes: [{ '.id': '*4', 'dst-address': '192.168.20.0/24', gateway: 'wg0' }],
    filter,
  });
  const verdict = (filter: SetupRecords['filter'], check: string) => auditSetup(tunnel(filter))[0]?.checks.find((entry) => entry.check === check);

  it.each([' wg0', 'wg0 ', '\twg0'])('an accept of in-interface=%j does not accept what comes from wg0', (name) => {
    const forward = verdict(
      [
        { '.id': '*2', chain: 'forward', action: 'accept', 'in-interface': name },
        { '.id': '*3', chain: 'forward', action: 'drop' },
      ],
      'firewall_forward',
    );
    expect(forward?.ok).toBe(false);
    expect(forward?.detail).toContain('drops new connections from 192.168.20.0/24');
  });

  it.each([' wg0', 'wg0 '])('a drop of out-interface=%j does not block what goes to wg0 (it may what goes elsewhere)', (name) => {
    const forward = verdict([{ '.id': '*2', chain: 'forward', action: 'drop', 'out-interface': name }], 'firewall_forward');
    expect(forward?.detail).toContain('drops new connections from 192.168.20.0/24');
    expect(forward?.detail).not.toContain('drops new connections to 192.168.20.0/24');
  });

  it.each(['TRUSTED ', ' TRUSTED'])('the fix before a drop of in-interface-list=!%j takes that very list', (list) => {
    const forward = verdict([{ '.id': '*3', chain: 'forward', action: 'drop', 'in-interface-list': `!${list}` }], 'firewall_forward');
    const to = (forward?.fix ?? '').split('\n').find((line) => line.includes('out-interface='));
    expect(to).toBeDefined();
    expect(Buffer.from(readConsoleValue(argsOf(to as string).get('in-interface-list') as string) as Uint8Array).toString()).toBe(list);
  });
});

describe('a negated name in a fix', () => {
  it.each<[string, string]>([
    ['ether1', 'in-interface=!ether1'],
    ['my if', 'in-interface="!my if"'],
    ['wg "x"', 'in-interface="!wg \\"x\\""'],
  ])('the fix before a drop of in-interface=%j takes every other interface, the `!` inside the one value', (name, expected) => {
    const records: SetupRecords = { ...hostileRouter('wg0', 'LAN'), filter: [{ '.id': '*3', chain: 'forward', action: 'drop', 'in-interface': name }] };
    const forward = auditSetup(records)[0]?.checks.find((check) => check.check === 'firewall_forward');
    const to = (forward?.fix ?? '').split('\n').find((line) => line.includes('out-interface='));
    expect(to).toContain(` ${expected} `);
    expect(Buffer.from(readConsoleValue(argsOf(to as string).get('in-interface') as string) as Uint8Array).toString()).toBe(`!${name}`);
  });
});

describe('a fix of several lines', () => {
  it('puts its notes (`#` lines) after every command: joined with ` ; ` (check, the verdict log) a note comments out the rest of the line', () => {
    const records: SetupRecords = {
      ...hostileRouter('wg0', 'LAN'),
      peers: [{ '.id': '*1', interface: 'wg0', 'allowed-address': '192.168.20.0/24,192.168.30.0/24', 'public-key': 'k' }],
      addresses: [
        { '.id': '*1', address: '10.99.0.1/24', interface: 'wg0' },
        { '.id': '*2', address: '192.168.20.1/24', interface: 'lan' },
      ],
      filter: [],
    };
    const route = auditSetup(records)[0]?.checks.find((check) => check.check === 'route');
    const lines = (route?.fix ?? '').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\/ip route add dst-address=192.168.30.0\/24 /);
    expect(lines[1]).toMatch(/^# 192.168.20.0\/24 is also the connected network of lan/);
  });
});

describe("a route's gateway", () => {
  it.each<[string, boolean]>([
    ['10.99.0.2%wg0', true],
    ['vlan%wg0', false],
    ['%wg0', false],
    ['10.0.0.1%my%wg0', false],
  ])('%s goes through wg0: %s (only an address before the `%` makes what follows an interface)', (gateway, through) => {
    const records: SetupRecords = {
      ...hostileRouter('wg0', 'LAN'),
      addresses: [{ '.id': '*1', address: '10.99.0.1/24', interface: 'wg0' }],
      routes: [{ '.id': '*4', 'dst-address': '192.168.20.0/24', gateway }],
      filter: [],
    };
    expect(auditSetup(records)[0]?.checks.find((check) => check.check === 'route')?.ok).toBe(through);
  });
});

describe('the console-line reading the fixes are checked by', () => {
  it.each([
    '/ip route set [find dst-address=192.168.20.0/24] gateway=wg0 ; /user add name=x group=full',
    '/ip address add interface=wg0 comment="x" # rest',
    '/ip route add gateway=$wg comment=x',
    '/ip route add gateway=wg0 comment="a"b"',
    '/ip route add gateway=wg0 {comment=x}',
    '/ip route add gateway=wg0\n/user add name=x',
    '/ip route set *5 gateway=wg0 [/user add name=x]',
    '/ip route add gateway="wg\\e2" comment=x',
  ])('refuses %j', (line) => {
    expect(readConsoleCommand(line)).toBeUndefined();
  });

  it('reads the forms the audit writes', () => {
    expect(readConsoleCommand('/ip route set [find dst-address=192.168.20.0/24 routing-table=main disabled=no] gateway="wg-b\\C3\\BCro"')?.target).toBe('[find dst-address=192.168.20.0/24 routing-table=main disabled=no]');
    expect(readConsoleCommand('/ip address add address=<tunnel-address>/<prefix-length> interface=wg0 comment="WireGuard wg0"')?.args.get('interface')).toBe('wg0');
    expect(() => expectConsoleLines('# a note\n/ip route add gateway=wg0')).toThrow(/after a note/);
  });
});
