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

/** Parses YAML text; syntax errors (and duplicate keys) become problems with their line and column. */
export function parseYaml(text: string): ParsedYaml {
  // `merge: true` lets users share blocks with `<<: *common`; anchors and aliases work regardless.
  const doc = parseDocument(text, { merge: true, prettyErrors: true, uniqueKeys: true });
  const problems: ConfigProblem[] = [...doc.errors, ...doc.warnings].map((error) => {
    const start = error.linePos?.[0];
    const where = start === undefined ? '' : `line ${start.line}, column ${start.col}: `;
    const problem: ConfigProblem = { path: '', message: `${where}${describe(error.message)}` };
    if (start !== undefined) {
      problem.line = start.line;
      problem.column = start.col;
    }
    return problem;
  });
  if (problems.length > 0) return { value: undefined, problems };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), problems };
  } catch (error) {
    // Unresolved aliases and alias bombs surface only when the document is turned into values.
    return { value: undefined, problems: [{ path: '', message: describe(error instanceof Error ? error.message : String(error)) }] };
  }
}
