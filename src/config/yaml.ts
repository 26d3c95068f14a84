import { parseDocument } from 'yaml';
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
  const doc = parseDocument(text, { merge: true, prettyErrors: true, uniqueKeys: true });
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
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), problems };
  } catch (error) {
    // Unresolved aliases and alias bombs surface only when the document is turned into values.
    return { value: undefined, problems: [{ path: '', message: describe(error instanceof Error ? error.message : String(error)) }] };
  }
}
