/**
 * Nothing in the test suite, the bench, the scripts or the sources reads outside the repository: a clone in an
 * empty folder (no ../shared beside it) must pass `npm test`. The scanner is first shown to catch each way of
 * reaching out (and to leave alone what stays inside), then run over every code file of the checkout.
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanSources } from './outside-paths.js';
import { repoRoot } from '../dashboards/shipped.js';

const SCANNED = ['test', 'bench', 'scripts', 'src'];
const CODE = /\.(ts|mts|cts|js|mjs|cjs|sh)$/;

function codeFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return CODE.test(entry.name) ? [path] : [];
  });
}

/** What lies beside the checkout (e.g. /work/shared), unless the checkout sits directly in / or the temp folder. */
function siblingsOfCheckout(): string[] {
  const root = realpathSync(repoRoot);
  const parent = dirname(root);
  if (parent === dirname(parent) || parent === realpathSync(tmpdir())) return [];
  return readdirSync(parent)
    .filter((name) => name !== basename(root))
    .map((name) => join(parent, name).split(sep).join('/'));
}

/** The cases spell the shared folder SHARED, so that this file itself does not name it. */
const scan = (files: Record<string, string>, siblings: string[] = []) =>
  scanSources(new Map(Object.entries(files).map(([file, text]) => [file, text.replaceAll('SHARED', 'shared')])), siblings).map(
    (f) => `${f.file}:${f.line} ${f.reason}`,
  );

describe('the scanner', () => {
  it.each([
    ['a join from the repository root up to shared', 'test/a/files.ts', "import { join } from 'node:path';\nexport const repoRoot = join(import.meta.dirname, '..', '..');\nexport const c = join(repoRoot, '..', 'SHARED', 'CONTRACT.md');"],
    ['a URL climbing three levels from test/metrics', 'test/metrics/x.test.ts', "readFileSync(new URL('../../../SHARED/CONTRACT.md', import.meta.url), 'utf8');"],
    ['path.resolve of a root taken from a fileURLToPath', 'test/rules/r.ts', "const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');\nconst F = path.join(ROOT, '..', 'notes', 'x.md');"],
    ['a relative literal read from the working folder', 'bench/b.ts', "readFileSync('../data/big.json');"],
    ['a template climbing from the root', 'scripts/s.ts', "const root = process.cwd();\nreadFileSync(`${root}/../other/x.md`);"],
    ['an import from above the root', 'src/a.ts', "import { x } from '../../elsewhere/x.js';"],
    ['a join of an unknown folder naming the shared folder', 'test/c.ts', "const c = join(someDir(), '..', 'SHARED', 'CONTRACT.md');"],
    ['a shell script climbing above the root', 'scripts/x.sh', 'cd "$(dirname "$0")/../.."\n'],
  ])('catches %s', (_what, file, text) => {
    expect(scan({ [file]: text })).toHaveLength(1);
  });

  it('follows an imported root into another scanned file', () => {
    const files = {
      'test/dashboards/shipped.ts': "export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');",
      'test/deploy/files.ts': "import { repoRoot } from '../dashboards/shipped.js';\nexport const p = join(repoRoot, '..', 'x', 'y.md');",
    };
    expect(scan(files)).toEqual(['test/deploy/files.ts:2 a path above the repository root']);
  });

  it('catches an absolute path beside the checkout', () => {
    expect(scan({ 'test/a.ts': "readFileSync('/elsewhere/SHARED/spec/api.md');" }, ['/elsewhere/shared'])).toHaveLength(1);
  });

  it('leaves alone what stays inside the repository or is not a path', () => {
    const files = {
      'test/helpers/fixtures.ts': "const dir = new URL('../fixtures/recorded/', import.meta.url);\nimport { a } from '../../src/a.js';",
      'test/config/docs.test.ts': "const here = dirname(fileURLToPath(import.meta.url));\nconst d = readFileSync(join(here, '..', '..', 'docs', 'configuration.md'));",
      'test/e2e/p.test.ts': "const ROOT = new URL('../../', import.meta.url).pathname;\nconst m = join(ROOT, 'dist', 'main.js');",
      'src/version.ts': "readFileSync(new URL('../package.json', import.meta.url), 'utf8');",
      'src/server/x.ts': "if (path.split('/').includes('..')) reject();\nconst s = parts.join('..');\nconst t = join(tmp, '..');",
      'scripts/ok.sh': 'cd "$(dirname "$0")/.."  # ../SHARED is not read here\n',
      'test/comment.ts': '// CONTRACT.md used to live in ../SHARED/ beside the checkout\nexport {};',
    };
    expect(scan(files)).toEqual([]);
  });
});

describe('the checkout', () => {
  it('has no test, bench, script or source file reaching outside the repository', () => {
    const files = SCANNED.flatMap(codeFiles).concat('vitest.config.ts');
    const sources = new Map(files.map((file) => [file, readFileSync(join(repoRoot, file), 'utf8')]));
    const siblings = siblingsOfCheckout();
    const findings = scanSources(sources, siblings).map((f) => `${f.file}:${f.line}: ${f.reason}: ${f.text}`);
    console.log(`no-outside-reads: scanned ${files.length} files of ${relative(dirname(repoRoot), repoRoot)}/, ${siblings.length} paths beside it`);
    expect(findings).toEqual([]);
  });
});
