/**
 * The committed dashboards are exactly what the TypeScript in scripts/dashboards generates.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DASHBOARD_DIR, renderedDashboards } from '../../scripts/dashboards/dashboards.js';
import { repoRoot } from './shipped.js';

const REGENERATE = 'stale: run `npx tsx scripts/dashboards/generate.ts` and commit the result';
const generated = renderedDashboards();

it.each([...generated.keys()])('%s is current', (path) => {
  expect(readFileSync(join(repoRoot, path), 'utf8'), `${path} ${REGENERATE}`).toBe(generated.get(path));
});

it('has no dashboard files that the generator does not make', () => {
  const committed = readdirSync(join(repoRoot, DASHBOARD_DIR)).map((file) => `${DASHBOARD_DIR}/${file}`);
  expect(committed.sort()).toEqual([...generated.keys()].sort());
});
