/**
 * The emulator fence (docs/architecture.md): the exporter's static module graph never holds the emulator or its
 * optional dependencies (zod, selfsigned); only `demo` loads the emulator, by a dynamic import, and says so in one
 * line when those dependencies are not installed; the emulator imports nothing from the exporter. ESLint holds
 * the fence while code is written; this file shows that the rules fire, that the tree obeys them, and that the
 * module graph agrees.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { missingOptionalDependency, startDemo } from '../../src/cli/demo.js';
import { repoRoot } from '../dashboards/shipped.js';

const EMULATOR_DEPENDENCIES = ['zod', 'selfsigned'];

interface ModuleGraph {
  /** Repository-relative paths of the source files reached. */
  files: Set<string>;
  /** Bare specifiers (packages and node: builtins) reached, by package name. */
  packages: Set<string>;
}

/**
 * The specifiers a file loads when it is evaluated: import and export-from declarations, except `import type` /
 * `export type`, which TypeScript erases. Dynamic `import()` is not followed: it loads only when called.
 */
function staticSpecifiers(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly === true) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) {
      if (statement.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The relative specifiers of a file's dynamic `import('./…')` calls, anywhere in it. */
function dynamicSpecifiers(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument !== undefined && ts.isStringLiteral(argument) && argument.text.startsWith('.')) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/**
 * Every file and package reachable from `entry` through static imports (`.js` specifiers resolve to `.ts`). The
 * entry's own dynamic imports are followed too: a CLI entry loads each command's modules when the command runs
 * (src/main.ts, src/emulator/cli.ts), so what a command reaches is the command's graph; a dynamic import further
 * down (demo's of the emulator) is not.
 */
function staticGraph(entry: string): ModuleGraph {
  const graph: ModuleGraph = { files: new Set(), packages: new Set() };
  const entryPath = join(repoRoot, entry);
  const pending = [entryPath, ...dynamicSpecifiers(entryPath).map((specifier) => join(dirname(entryPath), specifier).replace(/\.js$/, '.ts'))];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const name = relative(repoRoot, file);
    if (graph.files.has(name)) continue;
    graph.files.add(name);
    for (const specifier of staticSpecifiers(file)) {
      if (!specifier.startsWith('.')) {
        graph.packages.add(packageName(specifier));
        continue;
      }
      const target = join(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (!existsSync(target)) throw new Error(`${name}: cannot resolve ${specifier}`);
      pending.push(target);
    }
  }
  return graph;
}

describe('the static module graph', () => {
  it('from src/main.ts (run, once, check, check-config) holds no emulator file, no zod, no selfsigned', () => {
    const graph = staticGraph('src/main.ts');
    console.log(`fence: src/main.ts reaches ${graph.files.size} files and ${graph.packages.size} packages statically`);
    // The walk really covers the CLI: demo.ts is in the graph; its dynamic import of the emulator is not.
    expect(graph.files).toContain('src/cli/demo.ts');
    expect(graph.files).toContain('src/app.ts');
    expect([...graph.files].filter((file) => file.startsWith('src/emulator/'))).toEqual([]);
    expect([...graph.packages].filter((name) => EMULATOR_DEPENDENCIES.includes(name))).toEqual([]);
  });

  it('from the emulator reaches zod and selfsigned (the walk sees them) and no exporter file', () => {
    for (const entry of ['src/emulator/index.ts', 'src/emulator/cli.ts']) {
      const graph = staticGraph(entry);
      expect([...graph.files].filter((file) => !file.startsWith('src/emulator/')), entry).toEqual([]);
      expect([...graph.packages].filter((name) => EMULATOR_DEPENDENCIES.includes(name)).sort()).toEqual(['selfsigned', 'zod']);
    }
  });
});

describe('the packages', () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;

  it('zod and selfsigned are optional dependencies only: the exporter runs without them', () => {
    for (const name of EMULATOR_DEPENDENCIES) {
      expect(manifest['optionalDependencies']?.[name], name).toBeDefined();
      expect(manifest['dependencies']?.[name], name).toBeUndefined();
    }
  });

  it('the image keeps them: its demo (compose, smoke test) runs the emulator', () => {
    const installs = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').split('\n').filter((line) => /^RUN npm ci\b/.test(line));
    const production = installs.filter((line) => line.includes('--omit=dev'));
    expect(production).toHaveLength(1);
    expect(production[0]).not.toContain('--omit=optional');
  });
});

describe('the ESLint fence rules', () => {
  const eslint = new ESLint({ cwd: repoRoot });

  async function fenceErrors(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? [])
      .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax')
      .map((message) => `${message.ruleId}: ${message.message}`);
  }

  const violations: [string, string, string, RegExp][] = [
    ['the exporter imports the emulator', 'src/collectors/fence.ts', "import { startEmulator } from '../emulator/index.js';\nexport const a = startEmulator;\n", /no-restricted-imports: .*may not import src\/emulator/],
    ['main imports an emulator type', 'src/fence.ts', "import type { Emulator } from './emulator/types.js';\nexport type A = Emulator;\n", /no-restricted-imports: .*may not import src\/emulator/],
    ['the exporter imports zod', 'src/config/fence.ts', "import { z } from 'zod';\nexport const a = z;\n", /no-restricted-imports: .*zod and selfsigned/],
    ['the exporter re-exports selfsigned', 'src/util/fence.ts', "export { generate } from 'selfsigned';\n", /no-restricted-imports: .*zod and selfsigned/],
    ['the exporter loads the emulator dynamically', 'src/cli/fence.ts', "export const a = () => import('../emulator/index.js');\n", /no-restricted-syntax: only src\/cli\/demo.ts may load the emulator/],
    ['demo imports the emulator statically', 'src/cli/demo.ts', "import { startEmulator } from '../emulator/index.js';\nexport const a = startEmulator;\n", /no-restricted-imports: .*may not import src\/emulator/],
    ['the exporter computes a dynamic specifier', 'src/util/fence.ts', "export const a = (dir: string) => import(`../${dir}/index.js`);\n", /no-restricted-syntax: a dynamic import names its module literally/],
    ['demo computes a dynamic specifier', 'src/cli/demo.ts', "const where = '../emulator/index.js';\nexport const a = () => import(where);\n", /no-restricted-syntax: a dynamic import names its module literally/],
    ['demo loads zod dynamically', 'src/cli/demo.ts', "export const a = () => import('zod');\n", /no-restricted-syntax: zod and selfsigned belong to the emulator/],
    ['the emulator imports an exporter decoder', 'src/emulator/fence.ts', "import { parseRouterDuration } from '../routeros/decode.js';\nexport const a = parseRouterDuration;\n", /no-restricted-imports: .*imports nothing from the exporter/],
    ['a nested emulator file imports the exporter', 'src/emulator/rest/fence.ts', "export { RouterOsError } from '../../routeros/errors.js';\n", /no-restricted-imports: .*imports nothing from the exporter/],
  ];

  it.each(violations)('fires when %s', async (_what, filePath, code, expected) => {
    const errors = await fenceErrors(filePath, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(expected);
  }, 30_000);

  it('lets through what the fence allows', async () => {
    expect(await fenceErrors('src/cli/demo.ts', "export const a = () => import('../emulator/index.js');\n")).toEqual([]);
    expect(await fenceErrors('src/emulator/rest/fence.ts', "export { parseVersion } from '../util/version.js';\n")).toEqual([]);
    expect(await fenceErrors('src/emulator/http/fence.ts', "import { z } from 'zod';\nexport const a = z;\n")).toEqual([]);
    // Tests may drive the emulator; the fence is about what ships in the exporter.
    expect(await fenceErrors('test/emulator/fence.test.ts', "import { startEmulator } from '../../src/emulator/index.js';\nexport const a = startEmulator;\n")).toEqual([]);
  }, 30_000);

  it('holds over the real src tree', async () => {
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const broken = results.flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax')
        .map((message) => `${relative(repoRoot, result.filePath)}:${message.line} ${message.message}`),
    );
    console.log(`fence: linted ${results.length} src files`);
    expect(results.length).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  }, 180_000);
});

describe('demo without the emulator’s optional dependencies', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Node's own error for a missing package, renamed: the code and shape are the real ones. */
  async function missingPackageError(name: string): Promise<Error> {
    const absent = 'routeros-exporter-fence-absent-package';
    const error = await import(absent).then(
      () => new Error(`${absent} exists`),
      (failure: unknown) => failure as Error,
    );
    expect((error as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
    error.message = error.message.replace(absent, name);
    return error;
  }

  it.each(EMULATOR_DEPENDENCIES)('prints one line naming %s and exits 1', async (name) => {
    const error = await missingPackageError(name);
    expect(missingOptionalDependency(error)).toBe(name);
    const printed: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      printed.push(String(line));
    });
    const code = await startDemo({ command: 'demo', listen: '127.0.0.1:0' }, { loadEmulator: () => Promise.reject(error) });
    expect(code).toBe(1);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain(`'${name}' is not installed`);
    expect(printed[0]).toContain('--omit=optional');
    expect(printed[0]).not.toContain('\n');
  });

  it('lets any other load failure through: a missing other package or a broken emulator is a bug', async () => {
    const other = await missingPackageError('zodiac');
    expect(missingOptionalDependency(other)).toBeUndefined();
    await expect(startDemo({ command: 'demo' }, { loadEmulator: () => Promise.reject(other) })).rejects.toBe(other);
    const broken = new TypeError('emulator exploded');
    expect(missingOptionalDependency(broken)).toBeUndefined();
    await expect(startDemo({ command: 'demo' }, { loadEmulator: () => Promise.reject(broken) })).rejects.toBe(broken);
  });
});
