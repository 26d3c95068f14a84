/**
 * A peer this side only answers (`responder`, RouterOS 7.17+; `is-responder` on 7.15–7.16) cannot bring a session
 * back with its keepalive: a hub with keepalive set on its road warriors' peers paged for every sleeping laptop
 * under `expect: auto` (found by review). It is judged by what else says a session is expected; `expect: always`
 * still pages on the keepalive bound.
 */
import { describe, expect, it } from 'vitest';
import { judgeLiveness } from '../../src/analysis/liveness.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from '../collectors/sample-text.js';
import { T0, WG_UP, peerRecord } from '../health/snapshots.js';

const base = {
  disabled: false,
  interfaceDisabled: false,
  interfaceNotRunning: false,
  handshakeUnreadable: false,
  handshakeAgeSeconds: 3_600,
  keepaliveSeconds: 25,
  hasEndpoint: false,
  rxMoved: false,
  txMoved: true,
  staleAfterSeconds: 300,
};

describe('a responder peer with a keepalive', () => {
  it('is expected by nothing under auto: an hour without a handshake is idle, not down', () => {
    expect(judgeLiveness({ ...base, responder: true, expect: 'auto' })).toMatchObject({ state: 'idle', expected: false, because: 'not_expected' });
    // The same peer able to initiate is down.
    expect(judgeLiveness({ ...base, responder: false, expect: 'auto' })).toMatchObject({ state: 'down', expected: true, because: 'keepalive' });
  });

  it('is down under expect: always, by its keepalive bound', () => {
    expect(judgeLiveness({ ...base, responder: true, expect: 'always' })).toMatchObject({ state: 'down', expected: true, because: 'configured', boundSeconds: 210 });
  });

  it.each(['responder', 'is-responder'])('is read from %s as the router words it', (field) => {
    const router = testRouter({});
    const peer = peerRecord('laptop', '1h', { 'persistent-keepalive': '25s', [field]: 'true' });
    const text = sampleText(mapWireguard([WG_UP], [peer], routerLabel('hq'), router.health, T0).samples);
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*state="idle"\} 1/);
    const initiator = peerRecord('site', '1h', { 'persistent-keepalive': '25s', [field]: 'false' });
    expect(sampleText(mapWireguard([WG_UP], [initiator], routerLabel('hq'), router.health, T0).samples)).toMatch(/routeros_wireguard_peer_state\{[^}]*state="down"\} 1/);
  });
});
