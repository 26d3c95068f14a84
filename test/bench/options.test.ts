import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/options.js';

describe('bench options', () => {
  it('measure the fleet shape over 40 rounds of plain scrapes against the static buffer: a p50 of 10 was noise', () => {
    expect(parseOptions(['--fleet']).scrapes).toBe(40);
    expect(parseOptions(['--fleet', '--scrapes', '12']).scrapes).toBe(12);
    expect(parseOptions([]).scrapes).toBe(20);
  });

  it('pass the exporter\'s idle_connection through, keep unless asked, and refuse anything else', () => {
    expect(parseOptions(['--fleet']).idleConnection).toBe('keep');
    expect(parseOptions(['--fleet', '--idle-connection', 'close']).idleConnection).toBe('close');
    expect(() => parseOptions(['--fleet', '--idle-connection', 'sometimes'])).toThrow(/--idle-connection must be keep or close/);
  });

  it('ping two targets from every router of the fleet with --ping, and only there', () => {
    expect(parseOptions(['--fleet', '--ping']).fleetPing).toBe(true);
    expect(parseOptions(['--fleet']).fleetPing).toBe(false);
    expect(() => parseOptions(['--ping'])).toThrow(/--ping need --fleet/);
  });

  it('measure one router near the reply cap with --big-reply: 80,000 peers unless told, and no other shape beside it', () => {
    const options = parseOptions(['--big-reply']);
    expect(options).toMatchObject({ bigReply: true, routers: 1, peers: 80_000, fleet: false, naive: false });
    expect(parseOptions(['--big-reply', '--peers', '100000']).peers).toBe(100_000);
    expect(parseOptions([]).bigReply).toBe(false);
    expect(() => parseOptions(['--big-reply', '--fleet'])).toThrow(/--big-reply is one router of its own/);
    expect(() => parseOptions(['--big-reply', '--routers', '3'])).toThrow(/--big-reply is one router of its own/);
  });
});
