/** POST …/print with .proplist and the .query stack machine (spec §4.2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { compileQuery } from '../../src/emulator/rest/query.js';
import { asRows, Client } from './helpers.js';

let emu: Emulator;
let client: Client;
const R = 'q';

beforeAll(async () => {
  emu = await startEmulator({
    routers: [
      {
        name: R,
        ethernet: ['ether1', 'ether2', 'vlan10'],
        addresses: [
          { address: '10.0.0.1/24', interface: 'ether1' },
          { address: '10.0.1.1/24', interface: 'ether2', comment: 'office' },
          { address: '10.0.2.1/24', interface: 'vlan10', disabled: true },
          { address: '10.0.3.1/24', interface: 'ether1', comment: 'second' },
        ],
      },
    ],
  });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

async function query(words: string[], proplist = 'address'): Promise<string[]> {
  const a = await client.post(R, '/rest/ip/address/print', { '.proplist': proplist, '.query': words });
  expect(a.status).toBe(200);
  return asRows(a.json).map((r) => r['address'] ?? '?');
}

describe('.proplist in the body', () => {
  it('takes a comma string or a list', async () => {
    const s = asRows((await client.post(R, '/rest/ip/address/print', { '.proplist': 'address,comment' })).json);
    const l = asRows((await client.post(R, '/rest/ip/address/print', { '.proplist': ['address', 'comment'] })).json);
    expect(s).toEqual(l);
    expect(s).toHaveLength(4);
    expect(Object.keys(s[1] ?? {})).toEqual(['address', 'comment']);
    expect(Object.keys(s[0] ?? {})).toEqual(['address']);
  });

  it('without a body prints everything; unknown print parameters are refused', async () => {
    expect(asRows((await client.post(R, '/rest/ip/address/print')).json)).toHaveLength(4);
    expect((await client.post(R, '/rest/ip/address/print', { _proplist: 'address' })).status).toBe(400);
  });
});

describe('.query words', () => {
  it('conditions are ANDed by default', async () => {
    expect(await query(['interface=ether1'])).toEqual(['10.0.0.1/24', '10.0.3.1/24']);
    expect(await query(['interface=ether1', 'comment=second'])).toEqual(['10.0.3.1/24']);
  });

  it('#| ORs the two values on top', async () => {
    expect(await query(['interface=ether2', 'interface=vlan10', '#|'])).toEqual(['10.0.1.1/24', '10.0.2.1/24']);
  });

  it('#|! is NOT (a OR b)', async () => {
    expect(await query(['interface=ether2', 'interface=vlan10', '#|!'])).toEqual(['10.0.0.1/24', '10.0.3.1/24']);
  });

  it('#! negates, #& ANDs', async () => {
    expect(await query(['interface=ether1', '#!'])).toEqual(['10.0.1.1/24', '10.0.2.1/24']);
    expect(await query(['interface=ether1', 'comment=second', '#&'])).toEqual(['10.0.3.1/24']);
  });

  it('has-property and absent-property words', async () => {
    expect(await query(['comment'])).toEqual(['10.0.1.1/24', '10.0.3.1/24']);
    expect(await query(['-comment'])).toEqual(['10.0.0.1/24', '10.0.2.1/24']);
  });

  it('< and > compare (booleans normalised, yes = true)', async () => {
    expect(await query(['>address=10.0.1.1/24'])).toEqual(['10.0.2.1/24', '10.0.3.1/24']);
    expect(await query(['<address=10.0.1.1/24'])).toEqual(['10.0.0.1/24']);
    expect(await query(['disabled=yes'])).toEqual(['10.0.2.1/24']);
  });

  it('stack indexes copy values: a b #0 copies b, #1 copies a', async () => {
    // a=ether1 b=comment; "#1" pushes a copy of a; the final AND of [a,b,a] = a & b.
    expect(await query(['interface=ether1', 'comment', '#1'])).toEqual(['10.0.3.1/24']);
    // three-way OR built with indexes: (ether2 | vlan10) | comment=second
    expect(await query(['interface=ether2', 'interface=vlan10', 'comment=second', '#||'])).toEqual(['10.0.1.1/24', '10.0.2.1/24', '10.0.3.1/24']);
  });

  it('a malformed stack is a 400', async () => {
    const a = await client.post(R, '/rest/ip/address/print', { '.query': ['#|'] });
    expect(a.status).toBe(400);
  });
});

describe('the stack machine itself', () => {
  const row = { a: '1', b: '2' };
  it.each([
    [['a=1'], true],
    [['a=2'], false],
    [['a=2', 'b=2', '#|'], true],
    [['a=2', 'b=2', '#&'], false],
    [['a=1', '#.&'], true], // '.' duplicates the top
    [['a=1', 'b=1', '#0!'], false], // [T,F] → #0 copies F → ! turns the copy to T → AND of [T,F,T] is F
    [['c', '#!'], true],
    [[], true],
  ])('%j → %s', (words, expected) => {
    expect(compileQuery(words)(row)).toBe(expected);
  });
});
