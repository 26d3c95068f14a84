/** The shipped inventory scrape config (deploy/prometheus/inventory-profiles.yml) is valid as shipped. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promtool, repoRoot } from '../dashboards/shipped.js';

describe('deploy/prometheus/inventory-profiles.yml', () => {
  it('passes promtool check config (its file_sd list included)', () => {
    const result = promtool('check', 'config', join(repoRoot, 'deploy/prometheus/inventory-profiles.yml'));
    expect(result.ok, result.output).toBe(true);
  });
});
