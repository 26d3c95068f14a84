/**
 * Finds code that reaches outside the repository: path expressions that climb above its root, module
 * specifiers that do, relative literals used from the working folder (the root when tests run), `../shared`
 * anywhere, and absolute paths into the folders beside the checkout. It follows what the code computes
 * (TypeScript's parser; `const` values and imports between the scanned files), so `join(repoRoot, '..', 'x')`
 * is judged by where `repoRoot` really points, and `join(tmp, '..')` on an unknown folder is not judged.
 */
import { posix } from 'node:path';
import ts from 'typescript';

/** Where the scanned repository sits in the virtual file system the paths are resolved in. */
export const ROOT = '/repo';

export interface Finding {
  file: string;
  line: number;
  text: string;
  reason: string;
}

/** Source files by repository-relative path (forward slashes). */
export type Sources = ReadonlyMap<string, string>;

const PATH_CALLS = new Set(['join', 'resolve']);
const PATH_MODULES = new Set(['path', 'posix', 'path.posix']);
const MODULE_CALLS = new Set(['import', 'require', 'vi.mock', 'vi.doMock', 'vi.importActual', 'require.resolve']);

const SHARED = 'names the shared folder beside the checkout';

const inside = (path: string) => path === ROOT || path.startsWith(`${ROOT}/`);

/**
 * `siblings`: absolute paths of what lies beside the checkout on this machine (e.g. /work/shared); a literal
 * naming one of them, or something inside one, is reported.
 */
export function scanSources(sources: Sources, siblings: readonly string[] = []): Finding[] {
  const parsed = new Map<string, ts.SourceFile>();
  const sourceOf = (file: string): ts.SourceFile | undefined => {
    const text = sources.get(file);
    if (text === undefined) return undefined;
    let sf = parsed.get(file);
    if (sf === undefined) {
      sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      parsed.set(file, sf);
    }
    return sf;
  };
  const findings: Finding[] = [];
  for (const file of [...sources.keys()].sort()) {
    if (/\.(sh|bash)$/.test(file)) {
      findings.push(...scanShell(file, sources.get(file) ?? ''));
      continue;
    }
    const sf = sourceOf(file);
    if (sf !== undefined) findings.push(...scanFile(sf, sourceOf, siblings));
  }
  return findings;
}

/** `$(dirname "$0")/../..`-style climbs and `../shared` outside comments of a shell script. */
function scanShell(file: string, text: string): Finding[] {
  const out: Finding[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, '');
    const report = (reason: string) => out.push({ file, line: index + 1, text: raw.trim(), reason });
    if (/\.\.[/\\]shared\b/.test(line)) report(SHARED);
    for (const m of line.matchAll(/\$\(dirname "?\$(?:0|\{BASH_SOURCE\[0\]\})"?\)((?:\/\.\.)+)/g)) {
      const target = posix.join(ROOT, posix.dirname(file), (m[1] ?? '').slice(1));
      if (!inside(target)) report('climbs above the repository root');
    }
  });
  return out;
}

function scanFile(sf: ts.SourceFile, sourceOf: (file: string) => ts.SourceFile | undefined, siblings: readonly string[]): Finding[] {
  const file = sf.fileName;
  const out: Finding[] = [];
  const report = (node: ts.Node, reason: string) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    out.push({ file, line, text: node.getText(sf).slice(0, 120), reason });
  };
  const evaluator = new Evaluator(sourceOf);
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const text = node.text;
      if (/\.\.[/\\]shared\b/.test(text)) report(node, SHARED);
      const sibling = siblings.find((path) => text === path || text.startsWith(`${path}/`));
      if (sibling !== undefined) report(node, `an absolute path into ${sibling}, beside the checkout`);
    }
    const specifier = moduleSpecifier(node);
    if (specifier !== undefined) {
      if (specifier.text.startsWith('.') && !inside(posix.join(ROOT, posix.dirname(file), specifier.text))) {
        report(specifier, 'imports from above the repository root');
      }
      return;
    }
    if (isPathExpression(node)) {
      const value = evaluator.evaluate(node, file);
      if (value !== undefined && (value.startsWith('/') ? !inside(value) : /^\.\.(\/|$)/.test(value))) {
        report(node, 'a path above the repository root');
        return; // one finding per expression, not one more per part
      }
      if (namesSharedBeside(node)) report(node, SHARED);
    }
    if (ts.isTemplateExpression(node)) {
      const value = evaluator.evaluate(node, file);
      if (value?.startsWith('/') === true && !inside(posix.normalize(value))) report(node, 'a path above the repository root');
    }
    if (ts.isStringLiteralLike(node) && /^\.\.[/\\][^/\\]/.test(node.text) && !isPathExpressionArgument(node)) {
      report(node, 'a relative path above the working folder (the repository root when tests run)');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** `join(anything, '..', 'shared', ...)`: the parts climb one level and name `shared`. */
function namesSharedBeside(node: ts.Node): boolean {
  const args = ts.isCallExpression(node) ? [...node.arguments] : [];
  return args.some((arg, i) => ts.isStringLiteralLike(arg) && arg.text === '..' && isLiteral(args[i + 1], 'shared'));
}

function isLiteral(node: ts.Node | undefined, text: string): boolean {
  return node !== undefined && ts.isStringLiteralLike(node) && text === node.text.replace(/[/\\].*$/, '');
}

function calleeName(expr: ts.Expression): string {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isMetaProperty(expr)) return `${ts.tokenToString(expr.keywordToken) ?? ''}.${expr.name.text}`;
  if (ts.isPropertyAccessExpression(expr)) return `${calleeName(expr.expression)}.${expr.name.text}`;
  if (expr.kind === ts.SyntaxKind.ImportKeyword) return 'import';
  return '?'; // a call's or an element's result: `[...].join('/')` is no path join
}

/** `join(...)`, `path.resolve(...)`, `posix.join(...)`: a path built from parts. */
function isPathCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node)) return false;
  const name = calleeName(node.expression);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? PATH_CALLS.has(name) : PATH_CALLS.has(name.slice(dot + 1)) && PATH_MODULES.has(name.slice(0, dot));
}

/** `new URL(relative, base)`: a path resolved against another. */
function isUrlWithBase(node: ts.Node): node is ts.NewExpression {
  return ts.isNewExpression(node) && calleeName(node.expression) === 'URL' && (node.arguments?.length ?? 0) >= 2;
}

function isPathExpression(node: ts.Node): boolean {
  return isPathCall(node) || isUrlWithBase(node);
}

function isPathExpressionArgument(node: ts.Node): boolean {
  return node.parent !== undefined && isPathExpression(node.parent);
}

function moduleSpecifier(node: ts.Node): ts.StringLiteralLike | undefined {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
    return ts.isStringLiteralLike(node.moduleSpecifier) ? node.moduleSpecifier : undefined;
  }
  if (ts.isCallExpression(node) && MODULE_CALLS.has(calleeName(node.expression))) {
    const first = node.arguments[0];
    return first !== undefined && ts.isStringLiteralLike(first) ? first : undefined;
  }
  return undefined;
}

/**
 * Evaluates path expressions to absolute virtual paths (or a file URL's path), following `const` bindings and
 * imports between the scanned files. Anything it cannot know is `undefined`, and then nothing is judged.
 */
class Evaluator {
  private readonly active = new Set<string>();

  constructor(private readonly sourceOf: (file: string) => ts.SourceFile | undefined) {}

  evaluate(node: ts.Expression | ts.Node, file: string): string | undefined {
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node)) {
      return this.evaluate(node.expression, file);
    }
    if (ts.isStringLiteralLike(node)) return node.text;
    if (ts.isTemplateExpression(node)) {
      let text = node.head.text;
      for (const span of node.templateSpans) {
        const value = this.evaluate(span.expression, file);
        if (value === undefined) return undefined;
        text += value + span.literal.text;
      }
      return text;
    }
    if (ts.isPropertyAccessExpression(node)) {
      const name = calleeName(node);
      if (name === 'import.meta.url' || name === 'import.meta.filename') return posix.join(ROOT, file);
      if (name === 'import.meta.dirname') return posix.join(ROOT, posix.dirname(file));
      if (node.name.text === 'pathname' || node.name.text === 'href') return this.evaluate(node.expression, file);
      return undefined;
    }
    if (ts.isIdentifier(node)) {
      if (node.text === '__dirname') return posix.join(ROOT, posix.dirname(file));
      if (node.text === '__filename') return posix.join(ROOT, file);
      return this.binding(node.text, file);
    }
    if (ts.isCallExpression(node)) return this.call(node, file);
    if (isUrlWithBase(node)) {
      const [relative, base] = (node.arguments ?? []).map((arg) => this.evaluate(arg, file));
      if (relative === undefined || base === undefined || !base.startsWith('/')) return undefined;
      // URL semantics: a base without a trailing slash is a file, resolved against its folder.
      const folder = base.endsWith('/') ? base : posix.dirname(base);
      return posix.join(relative.startsWith('/') ? '/' : folder, relative) + (relative.endsWith('/') ? '/' : '');
    }
    return undefined;
  }

  private call(node: ts.CallExpression, file: string): string | undefined {
    const name = calleeName(node.expression);
    const method = name.slice(name.lastIndexOf('.') + 1);
    const args = node.arguments.map((arg) => this.evaluate(arg, file));
    if (name === 'process.cwd') return ROOT;
    if (name === 'fileURLToPath' || name === 'url.fileURLToPath') return args[0];
    if ((method === 'dirname' && (name === 'dirname' || PATH_MODULES.has(name.slice(0, -'.dirname'.length))))) {
      return args[0] === undefined ? undefined : posix.dirname(args[0].replace(/\/$/, ''));
    }
    if (!isPathCall(node) || args.some((arg) => arg === undefined)) return undefined;
    const parts = args as string[];
    // A relative join stays relative: used on its own it is relative to the working folder.
    if (method === 'join') return posix.join(...parts);
    const absolute = parts.map((p, i) => (p.startsWith('/') ? i : -1)).filter((i) => i >= 0).pop();
    return absolute === undefined ? posix.join(ROOT, ...parts) : posix.join(...parts.slice(absolute));
  }

  /** The value of a `const` in this file, or of what an import from another scanned file binds. */
  private binding(name: string, file: string): string | undefined {
    const key = `${file}#${name}`;
    if (this.active.has(key)) return undefined;
    const sf = this.sourceOf(file);
    if (sf === undefined) return undefined;
    this.active.add(key);
    try {
      for (const statement of sf.statements) {
        if (ts.isVariableStatement(statement) && (statement.declarationList.flags & ts.NodeFlags.Const) !== 0) {
          for (const decl of statement.declarationList.declarations) {
            if (ts.isIdentifier(decl.name) && decl.name.text === name && decl.initializer !== undefined) {
              return this.evaluate(decl.initializer, file);
            }
          }
        }
        const imported = importedAs(statement, name);
        if (imported !== undefined) {
          const target = posix.normalize(posix.join(posix.dirname(file), imported.from)).replace(/\.js$/, '.ts');
          return this.binding(imported.name, target);
        }
      }
      return undefined;
    } finally {
      this.active.delete(key);
    }
  }
}

/** For `import { a as name } from './x.js'` or `export { name } from './x.js'`: the source name and module. */
function importedAs(statement: ts.Statement, name: string): { name: string; from: string } | undefined {
  const clause =
    ts.isImportDeclaration(statement) && statement.importClause?.namedBindings !== undefined && ts.isNamedImports(statement.importClause.namedBindings)
      ? statement.importClause.namedBindings.elements
      : ts.isExportDeclaration(statement) && statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)
        ? statement.exportClause.elements
        : undefined;
  const from = statement as ts.ImportDeclaration | ts.ExportDeclaration;
  if (clause === undefined || from.moduleSpecifier === undefined || !ts.isStringLiteral(from.moduleSpecifier)) return undefined;
  if (!from.moduleSpecifier.text.startsWith('.')) return undefined;
  for (const element of clause) {
    if (element.name.text === name) return { name: (element.propertyName ?? element.name).text, from: from.moduleSpecifier.text };
  }
  return undefined;
}
