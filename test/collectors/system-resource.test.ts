/**
 * system/resource fields users asked for: bad-blocks (NAND only), write-sect-total / write-sect-since-reboot
 * (flash wear, in sectors) and build-time / factory-software in routeros_system_info, from recorded replies.
 */
import { describe, expect, it } from 'vitest';
import { mapSystem, SYSTEM_PROPLIST } from '../../src/collectors/system.js';
import { routerLabel } from '../../src/metrics/family.js';
import { fixtureRecord } from '../helpers/fixtures.js';
import { sampleText } from './sample-text.js';

const ROUTER = routerLabel('hq');
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

function infoLine(out: string): string {
  return out.split('\n').find((line) => line.startsWith('routeros_system_info{')) ?? '';
}

describe('system/resource flash wear and identity fields', () => {
  it('asks the router for every field it maps', () => {
    for (const field of ['bad-blocks', 'write-sect-total', 'write-sect-since-reboot', 'build-time', 'factory-software', 'minimum-version']) {
      expect(SYSTEM_PROPLIST).toContain(field);
    }
  });

  it('hAP ax² 7.20 (NAND): bad blocks as a ratio, sectors written as counters, build time and factory software in the info', () => {
    const result = mapSystem(fixtureRecord('system-resource-7.20-hap-ax2.json'), ROUTER, NOW);
    const out = sampleText(result.samples);
    expect(out).toContain('routeros_system_bad_blocks_ratio{router="hq"} 0\n');
    expect(out).toContain('routeros_system_write_sectors_total{router="hq"} 91274\n');
    expect(out).toContain('routeros_system_write_sectors_since_reboot_total{router="hq"} 23\n');
    expect(infoLine(out)).toBe(
      'routeros_system_info{router="hq",board_name="hAP ax^2",architecture="arm64",cpu="ARM64",platform="MikroTik",version="7.20.5 (stable)",build_time="2025-11-27 08:17:04",factory_software="7.5"} 1',
    );
    expect(result.problems).toEqual([]);
  });

  it('hAP ac² 7.16 (16 MiB NOR flash): no bad-blocks, so no series rather than a made-up 0', () => {
    const out = sampleText(mapSystem(fixtureRecord('system-resource-7.16-hap.json'), ROUTER, NOW).samples);
    expect(out).not.toContain('bad_blocks');
    expect(out).toContain('routeros_system_write_sectors_total{router="hq"} 45359\n');
    expect(out).toContain('routeros_system_write_sectors_since_reboot_total{router="hq"} 17390\n');
    expect(infoLine(out)).toContain(',build_time="2024-09-20 13:00:27",factory_software="6.44"}');
  });

  it('takes minimum-version (7.24+) for factory_software, and leaves an absent field an empty label', () => {
    const renamed = sampleText(mapSystem({ version: '7.24 (stable)', 'minimum-version': '7.1' }, ROUTER, NOW).samples);
    expect(infoLine(renamed)).toBe(
      'routeros_system_info{router="hq",board_name="",architecture="",cpu="",platform="",version="7.24 (stable)",build_time="",factory_software="7.1"} 1',
    );
    // An older build-time form is kept as the router writes it.
    const old = sampleText(mapSystem({ 'build-time': 'Jun/15/2023 05:17:29' }, ROUTER, NOW).samples);
    expect(infoLine(old)).toContain(',build_time="Jun/15/2023 05:17:29",factory_software=""}');
  });

  it('a fractional bad-blocks percentage (RouterOS 5 showed 0.2%) is a ratio too', () => {
    const out = sampleText(mapSystem({ 'bad-blocks': '0.2' }, ROUTER, NOW).samples);
    expect(out).toContain('routeros_system_bad_blocks_ratio{router="hq"} 0.002\n');
  });

  it('range rules: bad-blocks over 100 %, a negative or non-integer sector count is a decode problem, its series left out', () => {
    const result = mapSystem({ 'bad-blocks': '150', 'write-sect-total': '-5', 'write-sect-since-reboot': '1.5', 'cpu-count': '4' }, ROUTER, NOW);
    const out = sampleText(result.samples);
    expect(out).not.toContain('bad_blocks');
    expect(out).not.toContain('write_sectors');
    expect(out).toContain('routeros_system_cpu_cores{router="hq"} 4\n');
    expect(result.decodeErrors).toBe(3);
    for (const field of ['bad-blocks', 'write-sect-total', 'write-sect-since-reboot']) expect(result.problems.join('\n')).toContain(field);
  });

  it('sectors written since reboot above all sectors written cannot be: both left out, one problem', () => {
    const result = mapSystem({ 'write-sect-total': '100', 'write-sect-since-reboot': '5000' }, ROUTER, NOW);
    expect(sampleText(result.samples)).not.toContain('write_sectors');
    expect(result.decodeErrors).toBe(1);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/write-sect-since-reboot 5000 is above write-sect-total 100$/);
  });
});
