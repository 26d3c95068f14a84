/** `health.expect` in the config: per peer or interface, merged from defaults, checked, and read by the verdict. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { testRouter } from '../helpers/config.js';
import { expectOf } from '../../src/analysis/peer.js';
import { jobFingerprint } from '../../src/scheduler/definition.js';
import { wireguardCollector } from '../../src/collectors/wireguard.js';

describe('health.expect', () => {
  it('takes a peer name over its interface; auto when neither is named', () => {
    const health = testRouter({}, { health: { expect: { 'wg-sites': 'always', 'laptop-anna': 'on_demand' } } }).health;
    expect(expectOf({ name: 'branch-1', comment: undefined, interface: 'wg-sites' }, health)).toBe('always');
    expect(expectOf({ name: 'laptop-anna', comment: undefined, interface: 'wg-sites' }, health)).toBe('on_demand');
    expect(expectOf({ name: '', comment: 'laptop-anna', interface: 'wg-road' }, health)).toBe('on_demand');
    expect(expectOf({ name: 'x', comment: undefined, interface: 'wg-road' }, health)).toBe('auto');
    expect(expectOf({ name: 'x', comment: undefined, interface: 'wg-road' }, testRouter().health)).toBe('auto');
  });

  it('a peer called __proto__, constructor or toString is an ordinary name, kept as the YAML names it', () => {
    const expectMap = (parse('__proto__: always\nconstructor: on_demand\ntoString: always\n') as Record<string, unknown>);
    const health = testRouter({}, { health: { expect: expectMap } }).health;
    expect(expectOf({ name: '__proto__', comment: undefined, interface: 'wg0' }, health)).toBe('always');
    expect(expectOf({ name: 'constructor', comment: undefined, interface: 'wg0' }, health)).toBe('on_demand');
    expect(expectOf({ name: 'toString', comment: undefined, interface: 'wg0' }, health)).toBe('always');
    expect(expectOf({ name: 'valueOf', comment: undefined, interface: 'hasOwnProperty' }, health)).toBe('auto');
  });

  it("a router's map replaces the defaults' map", () => {
    const health = testRouter({ health: { expect: { 'wg-road': 'on_demand' } } }, { health: { expect: { 'wg-sites': 'always' } } }).health;
    expect(health.expect).toEqual({ 'wg-road': 'on_demand' });
  });

  it('refuses an unknown mode and a non-mapping, naming the key', () => {
    expect(() => testRouter({}, { health: { expect: { 'wg-sites': 'sometimes' } } })).toThrow(/health\.expect\.wg-sites.*must be one of always, on_demand, auto, not "sometimes"/s);
    expect(() => testRouter({}, { health: { expect: ['always'] } })).toThrow(/health\.expect.*must be a mapping/s);
  });

  it('a change of expect replaces the wireguard job on reload (its run reads it)', () => {
    const fingerprint = (expect: Record<string, string> | undefined) => {
      const router = testRouter({}, expect === undefined ? {} : { health: { expect } });
      const [job] = wireguardCollector.jobs(router);
      if (job === undefined) throw new Error('no wireguard job');
      return jobFingerprint(router, job);
    };
    expect(fingerprint({ 'wg-sites': 'always' })).not.toBe(fingerprint(undefined));
    expect(fingerprint({ 'wg-sites': 'always' })).not.toBe(fingerprint({ 'wg-sites': 'on_demand' }));
    expect(fingerprint({ 'wg-sites': 'always' })).toBe(fingerprint({ 'wg-sites': 'always' }));
  });
});
