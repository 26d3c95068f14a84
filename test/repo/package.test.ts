/**
 * The package is complete (what `npm pack` and the image ship): a LICENSE matching package.json, where the
 * project lives, no install-time scripts (npm 11 flags them), and source maps that carry their sources.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  license: string;
  repository?: { url?: string };
  homepage?: string;
  bugs?: { url?: string };
  files: string[];
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

function* mapsUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* mapsUnder(path);
    else if (entry.name.endsWith('.js.map')) yield path;
  }
}

describe('the package', () => {
  it('has a LICENSE with the license package.json names, shipped in the package', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(text).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    expect(pkg.files).toContain('LICENSE');
  });

  it('says where the project lives', () => {
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs?.url).toMatch(/^https:\/\/.*\/issues$/);
  });

  it('runs no script at install time (it builds before packing instead)', () => {
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.scripts['prepack']).toBe('npm run build');
  });

  it("marks its commands executable when it builds, so `npx routeros-exporter` runs in a clone", () => {
    // npm test builds before the tests run; npm sets the bit only when it installs the package.
    for (const path of Object.values(pkg.bin)) expect(statSync(join(ROOT, path)).mode & 0o111, path).toBe(0o111);
  });

  it('ships source maps only with their sources inside', () => {
    // npm test builds before the tests run; the maps are what the package and the image would carry.
    const dist = join(ROOT, 'dist');
    expect(existsSync(dist)).toBe(true);
    let maps = 0;
    for (const path of mapsUnder(dist)) {
      const map = JSON.parse(readFileSync(path, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sourcesContent?.length, path).toBe(map.sources.length);
      expect(map.sourcesContent?.every((source) => typeof source === 'string' && source.length > 0), path).toBe(true);
      maps++;
    }
    expect(maps).toBeGreaterThan(50);
  });
});
