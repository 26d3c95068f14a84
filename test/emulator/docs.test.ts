/** docs/emulator.md stays in step with the demo scenario it documents. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_FACTS, DEMO_KEYS, DEMO_ROUTERS } from '../../src/emulator/index.js';

const doc = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8');

describe('docs/emulator.md', () => {
  it('lists every demo public key', () => {
    for (const [label, pair] of Object.entries(DEMO_KEYS)) expect(doc, label).toContain(pair.publicKey);
  });

  it('names every demo router, interface and named peer', () => {
    for (const r of DEMO_ROUTERS) {
      expect(doc).toContain(`\`${r.name}\``);
      for (const i of r.interfaces ?? []) expect(doc).toContain(i.name);
      for (const p of r.peers ?? []) if (p.name !== undefined) expect(doc).toContain(`\`${p.name}\``);
    }
  });

  it('states the failing audit and the special peers as DEMO_FACTS has them', () => {
    const f = DEMO_FACTS;
    expect(doc).toContain(`${f.failingAudit.router} \`${f.failingAudit.interface}\` fails \`${f.failingAudit.check}\``);
    for (const peer of [f.stalePeer, f.goingStalePeer, f.neverPeer, f.disabledPeer]) expect(doc).toContain(`\`${peer.name}\``);
  });
});
