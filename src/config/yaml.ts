import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { joinPath } from './problems.js';
import type { ConfigProblem } from './types.js';

export interface ParsedYaml {
  value: unknown;
  problems: ConfigProblem[];
}

/**
 * The yaml package's messages end with a source excerpt and may quote the offending token; either can
 * be a password typed on the wrong line, so keep only the description and our own line/column.
 */
function describe(message: string): string {
  const [first = ''] = message.split('\n');
  return first
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/: ".*"$/, '')
    .trim();
}

/** 1-based column of the first non-blank character of a 1-based line, or 1. */
function indentColumn(text: string, line: number): number {
  const content = text.split(/\r?\n/)[line - 1] ?? '';
  return content.length - content.trimStart().length + 1;
}

type YamlError = ReturnType<typeof parseDocument>['errors'][number];

/**
 * Where a user should look, and what to read there. A key indented deeper than the one above it turns the
 * two lines into one multi-line key: the yaml package reports the first line (where nothing is wrong) twice;
 * report the mis-indented line once. A mapping item at the wrong column is reported at the line's start:
 * point at the key.
 */
function locate(error: YamlError, text: string): { line: number; col: number; message: string } | undefined {
  const [start, end] = error.linePos ?? [];
  if (start === undefined) return undefined;
  if (error.code === 'MULTILINE_IMPLICIT_KEY' && end !== undefined && end.line > start.line) {
    return {
      line: end.line,
      col: indentColumn(text, end.line),
      message: 'this line is indented deeper than the key above it, so YAML reads both lines as one key (indent it like its neighbours)',
    };
  }
  const col = error.code === 'BAD_INDENT' ? indentColumn(text, start.line) : start.col;
  return { line: start.line, col, message: describe(error.message) };
}

/** Parses YAML text; syntax errors (and duplicate keys) become problems with their line and column. */
export function parseYaml(text: string): ParsedYaml {
  // `merge: true` lets users share blocks with `<<: *common`; anchors and aliases work regardless.
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: true, uniqueKeys: true });
  const errors = [...doc.errors, ...doc.warnings];
  // The same mis-indented line also yields "Nested mappings are not allowed in compact mappings" at the same place.
  const multiline = new Set(errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  const problems: ConfigProblem[] = errors
    .filter((error) => !(error.code === 'BLOCK_AS_IMPLICIT_KEY' && multiline.has(error.pos[0])))
    .map((error) => {
      const at = locate(error, text);
      if (at === undefined) return { path: '', message: describe(error.message) };
      return { path: '', message: `line ${at.line}, column ${at.col}: ${at.message}`, line: at.line, column: at.col };
    });
  if (problems.length > 0) return { value: undefined, problems };
  // Checked on the syntax tree, before toJS: an alias inside its own anchor makes toJS build a cyclic object,
  // which every later step (interpolation, validation) would recurse into until the stack overflows.
  const aliasProblems = checkAliases(doc, lines);
  if (aliasProblems.length > 0) return { value: undefined, problems: aliasProblems };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), problems };
  } catch (error) {
    // What is left after checkAliases is the alias bomb (the yaml package throws a ReferenceError for it).
    // Our own words either way: the package's message is not ours to vouch for.
    const message =
      error instanceof ReferenceError && /alias count/i.test(error.message)
        ? 'too many aliases: expanding them would take more than 100 copies of anchored values (a resource exhaustion guard)'
        : 'the YAML cannot be turned into values';
    return { value: undefined, problems: [{ path: '', message }] };
  }
}

/** The config path of a value, for messages: `routers[0].labels.site`. */
function keyName(key: unknown): string {
  // The merge key `<<` is held as a symbol.
  if (isScalar(key)) return typeof key.value === 'symbol' ? (key.value.description ?? '?') : String(key.value);
  return key === null || key === undefined ? '' : '?';
}

/**
 * Aliases that refer to no anchor, or to an anchor they sit inside (a cycle: the value would contain itself).
 * A cycle always closes at such an alias: an alias refers only to an anchor set before it, so following
 * aliases from an anchor that does not contain them only ever reaches earlier, finished values. The anchor
 * name is never quoted (`password: *secret` is an alias to YAML). Walked with an explicit stack, so no nesting
 * depth the parser accepted can overflow it.
 */
function checkAliases(doc: Document, lines: LineCounter): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // The latest node set with each anchor name so far, in document order — what the yaml package resolves to.
  const anchors = new Map<string, unknown>();
  // Collections being walked: the ancestors of the current node.
  const open = new Set<unknown>();
  const stack: { node: unknown; path: string; leave?: true }[] = [{ node: doc.contents, path: '' }];
  const report = (node: { range?: [number, number, number] | null }, path: string, reason: string): void => {
    const { line, col } = lines.linePos(node.range?.[0] ?? 0);
    problems.push({ path, message: `line ${line}, column ${col}: ${reason}`, line, column: col });
  };
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { node, path } = frame;
    if (frame.leave === true) {
      open.delete(node);
      continue;
    }
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined) {
        report(node, path, 'an alias (*name) refers to no anchor (&name) set before it (quote a value that starts with *)');
      } else if (open.has(target)) {
        report(node, path, 'an alias (*name) inside the anchor (&name) it refers to: the value would contain itself');
      }
      continue;
    }
    if (isScalar(node) || isMap(node) || isSeq(node)) {
      if (node.anchor !== undefined) anchors.set(node.anchor, node);
    }
    if (!isMap(node) && !isSeq(node)) continue;
    open.add(node);
    const children: { node: unknown; path: string }[] = [];
    node.items.forEach((item: unknown, i: number) => {
      if (isPair(item)) {
        const at = joinPath(path, keyName(item.key));
        children.push({ node: item.key, path: at }, { node: item.value, path: at });
      } else {
        children.push({ node: item, path: joinPath(path, i) });
      }
    });
    stack.push({ node, path, leave: true }, ...children.reverse());
  }
  return problems;
}
