/**
 * The layers of docs/architecture.md: every import from one folder of src/ to another (type-only ones too: they
 * tie the folders as much for a reader) goes to a lower layer, except through the two documented seams, the
 * collectors' contracts (data only) and the family list made from them. The emulator is fenced off on its own
 * (fence.test.ts), but no files of src/ may import each other in a circle, the emulator's included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../dashboards/shipped.js';

/** Lowest first, as docs/architecture.md lists them from the top down. */
const LAYERS = ['util', 'version', 'config', 'routeros', 'analysis', 'metrics', 'collectors', 'scheduler', 'health', 'discovery', 'server', 'app', 'cli', 'main'];

/** The seams that run the other way: files that hold data only (docs/architecture.md). */
const SEAMS = [/^src\/collectors\/[a-z-]+\.contract\.ts$/, /^src\/collectors\/(contract|descriptors)\.ts$/, /^src\/metrics\/(families|family)\.ts$/];

/** The layer of a file under src/: its folder, or its own name for a file at the top (app.ts, main.ts). */
function layerOf(file: string): string {
  const [, first = ''] = file.split('/');
  return first.replace(/\.ts$/, '');
}

function sourceFiles(folder: string, withEmulator = false): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'emulator' && !withEmulator ? [] : sourceFiles(path, withEmulator);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface SourceFile {
  /** Repository-relative. */
  file: string;
  text: string;
}

/** The repository-relative files a source file imports or re-exports from, type-only ones included. */
function importedFiles({ file, text }: SourceFile): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const specifier = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    targets.push(join(dirname(file), specifier.text).replace(/\.js$/, '.ts'));
  }
  return targets;
}

/** Every import from one layer to one above it, `from -> to`, that no seam explains. */
function upwardImports(sources: readonly SourceFile[]): string[] {
  const found: string[] = [];
  for (const source of sources) {
    const from = layerOf(source.file);
    for (const to of importedFiles(source)) {
      if (layerOf(to) === from || SEAMS.some((seam) => seam.test(to))) continue;
      if (LAYERS.indexOf(layerOf(to)) > LAYERS.indexOf(from)) found.push(`${source.file} -> ${to}`);
    }
  }
  return found;
}

/** One import circle, `a -> b -> a`, if the files hold any (a depth-first walk; each file entered once). */
function importCircle(sources: readonly SourceFile[]): string | undefined {
  const imports = new Map(sources.map((source) => [source.file, importedFiles(source)]));
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): string | undefined => {
    const open = path.indexOf(file);
    if (open >= 0) return [...path.slice(open), file].join(' -> ');
    if (done.has(file)) return undefined;
    path.push(file);
    for (const next of imports.get(file) ?? []) {
      const circle = visit(next);
      if (circle !== undefined) return circle;
    }
    path.pop();
    done.add(file);
    return undefined;
  };
  for (const file of imports.keys()) {
    const circle = visit(file);
    if (circle !== undefined) return circle;
  }
  return undefined;
}

describe('the layers of src/', () => {
  const sources = sourceFiles(join(repoRoot, 'src')).map((path) => ({ file: relative(repoRoot, path), text: readFileSync(path, 'utf8') }));

  it('every folder and top-level file of src/ (but the emulator) has a layer', () => {
    const unplaced = [...new Set(sources.map((source) => layerOf(source.file)))].filter((layer) => !LAYERS.includes(layer));
    expect(unplaced).toEqual([]);
  });

  it("imports go down, except through the collectors' contracts and the family list", () => {
    expect(sources.length).toBeGreaterThan(100);
    expect(upwardImports(sources)).toEqual([]);
  });

  it("no files of src/, the emulator's too, import each other in a circle (type-only imports count)", () => {
    const all = sourceFiles(join(repoRoot, 'src'), true).map((path) => ({ file: relative(repoRoot, path), text: readFileSync(path, 'utf8') }));
    expect(all.length).toBeGreaterThan(sources.length);
    expect(importCircle(all)).toBeUndefined();
    // The walk finds one when there is one.
    const circle = [
      { file: 'src/a.ts', text: "import type { B } from './b.js';" },
      { file: 'src/b.ts', text: "import { C } from './c.js';" },
      { file: 'src/c.ts', text: "export type { A } from './a.js';" },
    ];
    expect(importCircle(circle)).toBe('src/a.ts -> src/b.ts -> src/c.ts -> src/a.ts');
  });

  it('an import up a layer is found, type-only or not, and a seam or an import down is not', () => {
    const text = [
      "import type { DiscoverResult } from '../server/endpoints.js';",
      "export { startDemo } from '../cli/demo.js';",
      "import { SYSTEM } from '../collectors/system.contract.js';",
      "import { redact } from '../util/redact.js';",
      "import { merge } from './merge.js';",
    ].join('\n');
    expect(upwardImports([{ file: 'src/metrics/probe.ts', text }])).toEqual(['src/metrics/probe.ts -> src/server/endpoints.ts', 'src/metrics/probe.ts -> src/cli/demo.ts']);
  });
});
