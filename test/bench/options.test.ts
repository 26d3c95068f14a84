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
});
