/**
 * docs/performance.md's fleet table shows the newest recorded fleet runs (bench/runs/fleet-<date>.json) as
 * bench/fleet-figures.ts renders them, and the sizing rule's routers-per-core comes from the figures.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLEET_BEGIN, FLEET_END, fleetFigures, latestFleetFile, routersPerCore, withFleetFigures, type FleetLine } from '../../bench/fleet-figures.js';

const DOC = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8');

describe('docs/performance.md fleet figures', () => {
  it('holds exactly the figures rendered from the newest fleet record', () => {
    const latest = latestFleetFile();
    expect(latest).toBeDefined();
    if (latest === undefined) return;
    expect(DOC).toContain(FLEET_BEGIN);
    expect(DOC).toContain(FLEET_END);
    expect(DOC).toBe(withFleetFigures(DOC, fleetFigures(latest.name, latest.file)));
  });

  it('derives routers per core from CPU per router, leaving half the core', () => {
    const line = { routers: 2000, schedule_s: 30, cycle_cpu_ms: 6000 } as FleetLine;
    // 3 ms per router per 30 s cycle; half a core is 15,000 ms: 5,000 routers.
    expect(routersPerCore(line)).toBe(5000);
    expect(routersPerCore({ ...line, cycle_cpu_ms: 8640 })).toBe(3400);
  });
});
