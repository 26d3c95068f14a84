import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type ErrorCode, type Pair, type Alias } from 'yaml';
import { SECRET_KEYS } from './fields.js';
import { joinPath } from './problems.js';
import type { ConfigProblem } from './types.js';

export interface ParsedYaml {
  value: unknown;
  problems: ConfigProblem[];
}

/**
 * What we say for each of the yaml package's error codes. The package's own messages quote the source — the
 * unknown tag, the alias name, the bad escape, the token — and a password typed unquoted (`password: !x…`,
 * `password: *x…`) is exactly such a token. So a message is only ever built from the code, with our own
 * fixed words; the package's text is never shown, edited or not. Record<ErrorCode, …> makes a new code
 * a compile error here rather than a leak.
 */
const WORDING: Record<ErrorCode, string> = {
  ALIAS_PROPS: 'an alias (*name) cannot have an anchor or a tag',
  BAD_ALIAS: 'an anchor (&name) or alias (*name) is empty or ends in ":" (quote a value that starts with & or *)',
  BAD_COLLECTION_TYPE: 'a tag (!name) does not fit the kind of value it is on (quote a value that starts with !)',
  BAD_DIRECTIVE: 'a % directive is not valid (quote a value that starts with %)',
  BAD_DQ_ESCAPE: 'a double-quoted value has an invalid \\ escape (use single quotes, or write \\\\ for a backslash)',
  BAD_INDENT:
    'wrong indentation: the items of one list or mapping start at the same column, and a [ ] or { } over several lines is indented deeper than its key and closed',
  BAD_PROP_ORDER: 'an anchor (&name) or tag (!name) is in the wrong place (quote a value that starts with & or !)',
  BAD_SCALAR_START: 'a plain value cannot start with this character (quote the value)',
  BLOCK_AS_IMPLICIT_KEY: 'a list or mapping cannot be a key here (check the indentation)',
  BLOCK_IN_FLOW: 'an indented list or mapping cannot be inside [ ] or { } (close the brackets, or quote a value that starts with [ or {)',
  DUPLICATE_KEY: 'map keys must be unique: this key is already set in the same mapping',
  IMPOSSIBLE: 'the YAML cannot be read here',
  KEY_OVER_1024_CHARS: 'a key on one line is limited to 1024 characters',
  MISSING_CHAR: 'a character is missing: a closing quote or bracket, a comma between items, or a space after ":"',
  MULTILINE_IMPLICIT_KEY: 'a key must be on a single line (check the indentation, or close a quote or bracket)',
  MULTIPLE_ANCHORS: 'a value can have at most one anchor (&name) (quote a value that starts with &)',
  MULTIPLE_DOCS: 'the file must hold one YAML document (remove the "---" separator)',
  MULTIPLE_TAGS: 'a value can have at most one tag (!name) (quote a value that starts with !)',
  NON_STRING_KEY: 'a key must be plain text',
  RESOURCE_EXHAUSTION: 'the YAML is nested too deeply to read',
  TAB_AS_INDENT: 'tabs are not allowed as indentation (use spaces)',
  TAG_RESOLVE_FAILED: 'an unknown tag (!name) (quote a value that starts with !)',
  UNEXPECTED_TOKEN:
    'unexpected character (quote a value that starts with one of ! & * % @ ` | > [ ] { } , ? : - # \' ")',
};

type YamlError = ReturnType<typeof parseDocument>['errors'][number];

function describe(error: YamlError): string {
  // Object.hasOwn: the code is the package's, not ours to trust as a key (and may be new to this table).
  return Object.hasOwn(WORDING, error.code) ? WORDING[error.code] : 'the YAML cannot be read here';
}

/** 1-based column of the first non-blank character of a 1-based line, or 1. */
function indentColumn(text: string, line: number): number {
  const content = text.split(/\r?\n/)[line - 1] ?? '';
  return content.length - content.trimStart().length + 1;
}


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
  return { line: start.line, col, message: describe(error) };
}

/**
 * Parses YAML text; syntax errors (and duplicate keys) become problems with their line and column. Duplicate keys
 * are found by checkAliases, with a set per mapping: the parser's own check (uniqueKeys) compares every key with
 * every other, 11 s for a mapping of 40,000 keys and 400 s for 200,000.
 *
 * `namedBesideSecret`: the keys a mapping that holds a password may hold (the config's own words); any other key
 * after a password in a `{ … }` mapping is not named in a problem's path, as it may be the password's rest.
 */
export function parseYaml(text: string, namedBesideSecret: ReadonlySet<string> = new Set()): ParsedYaml {
  // `merge: true` lets users share blocks with `<<: *common`; anchors and aliases work regardless.
  const lines = new LineCounter();
  // logLevel 'error': the package would otherwise print its warnings (with source text) to stderr itself.
  // schema 'core': YAML 1.2's, whatever a `%YAML 1.1` line asks (1.1 reads yes/no/on/off as booleans and 0755
  // as octal, which the docs say are refused or decimal); such a line is also refused below.
  const doc = parseDocument(text, { lineCounter: lines, logLevel: 'error', merge: true, prettyErrors: true, uniqueKeys: false, schema: 'core' });
  // Too deep a nesting fails once per open level: one problem says it.
  const errors = [...doc.errors, ...doc.warnings].filter(
    (error, i, all) => error.code !== 'RESOURCE_EXHAUSTION' || all.findIndex((e) => e.code === error.code) === i,
  );
  // The same mis-indented line also yields "Nested mappings are not allowed in compact mappings" at the same place.
  const multiline = new Set(errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  const problems: ConfigProblem[] = errors
    .filter((error) => !(error.code === 'BLOCK_AS_IMPLICIT_KEY' && multiline.has(error.pos[0])))
    .map((error) => {
      const at = locate(error, text);
      if (at === undefined) return { path: '', message: describe(error) };
      return { path: '', message: `line ${at.line}, column ${at.col}: ${at.message}`, line: at.line, column: at.col };
    });
  const directive = doc.directives?.yaml;
  if (directive?.explicit === true && directive.version !== '1.2') {
    problems.push({ path: '', message: `the file asks for YAML ${directive.version} (a %YAML line): only YAML 1.2 is read; remove the line` });
  }
  if (problems.length > 0) return { value: undefined, problems };
  // Checked on the syntax tree, before toJS: an alias inside its own anchor makes toJS build a cyclic object,
  // which every later step (interpolation, validation) would recurse into until the stack overflows.
  const aliasProblems = checkAliases(doc, lines, namedBesideSecret);
  if (aliasProblems.length > 0) return { value: undefined, problems: aliasProblems };
  try {
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    const { depth, values, written } = measureValue(value);
    if (depth > MAX_NESTING) {
      return { value: undefined, problems: [{ path: '', message: `the YAML is nested more than ${MAX_NESTING} levels deep once its aliases are expanded (an alias inside a deep value, itself inside another)` }] };
    }
    // What the aliases add, not what is written: a long config written out is bounded by the file's size alone.
    if (values - written > MAX_EXPANDED_VALUES) {
      return {
        value: undefined,
        problems: [{ path: '', message: `its aliases add more than ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} values once expanded, far more than any config: alias large values less often (a resource exhaustion guard)` }],
      };
    }
    return { value, problems };
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

/**
 * How deep a value may nest once aliases are expanded. The parser refuses a document nested ~780 levels deep, but
 * an alias puts a whole anchored value at its place: 60 anchors each 500 levels deep around the one before made
 * a value 30,000 levels deep from 61 KB, and the loader's walks (interpolation, checks) ran out of stack.
 */
export const MAX_NESTING = 1000;

/**
 * The most values (items and entries, at every depth) a config's aliases may add once expanded. The yaml package's
 * guard counts aliases inside an anchored value, not the value's size: a 275 KB file aliasing a mapping of 20,000
 * keys 99 times expanded to 2 million values, which the loader copied and checked key by key: the event loop held for
 * 31 s, 1.3 GB, and 2 million problems (found by review). A 5,000-router config holds ~150,000 in all.
 */
export const MAX_EXPANDED_VALUES = 500_000;

/**
 * The depth of lists and mappings in a value, how many values it holds with every alias expanded (counted up to
 * 2^53), and how many it writes out (each shared value once), walked with an explicit stack; a value an alias shares
 * is walked once.
 */
export function measureValue(root: unknown): { depth: number; values: number; written: number } {
  const measured = new Map<object, { depth: number; values: number }>();
  const stack: { node: object; childrenPushed: boolean }[] = [];
  const isCollection = (value: unknown): value is object => value !== null && typeof value === 'object';
  if (!isCollection(root)) return { depth: 0, values: 0, written: 0 };
  // The values of each list and mapping once, however many aliases share it: what the file writes out.
  let written = 0;
  stack.push({ node: root, childrenPushed: false });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as { node: object; childrenPushed: boolean };
    const entries = Object.values(frame.node);
    if (!frame.childrenPushed) {
      frame.childrenPushed = true;
      for (const child of entries) if (isCollection(child) && !measured.has(child)) stack.push({ node: child, childrenPushed: false });
      continue;
    }
    stack.pop();
    // A value listed twice under one parent ([*a, *a]) was pushed twice: measured once.
    if (measured.has(frame.node)) continue;
    let deepest = 0;
    let values = entries.length;
    written += entries.length;
    for (const child of entries) {
      if (!isCollection(child)) continue;
      const own = measured.get(child);
      deepest = Math.max(deepest, own?.depth ?? 0);
      // Capped: a value aliased inside aliases doubles at each level, past what a double counts exactly.
      values = Math.min(values + (own?.values ?? 0), Number.MAX_SAFE_INTEGER);
    }
    measured.set(frame.node, { depth: deepest + 1, values });
  }
  return { ...(measured.get(root) ?? { depth: 0, values: 0 }), written };
}


/** The config path of a value, for messages: `routers[0].labels.site`. */
function keyName(key: unknown): string {
  // The merge key `<<` is held as a symbol.
  if (isScalar(key)) return typeof key.value === 'symbol' ? (key.value.description ?? '?') : String(key.value);
  return key === null || key === undefined ? '' : '?';
}

/**
 * A scalar key as toJS writes it into an object (null as '', anything else as String()), or undefined for the
 * merge key `<<` and for what is not a scalar (refused on its own).
 */
function writtenKey(key: unknown): string | undefined {
  if (!isScalar(key) || typeof key.value === 'symbol') return undefined;
  return key.value === null ? '' : String(key.value);
}

/**
 * Whether a merge key's value is what YAML merges: a mapping, an alias of one, or a list of those. An alias to no
 * anchor counts as one here: it is reported on its own.
 */
function mergesMappings(value: unknown, targetOf: (alias: Alias) => unknown): boolean {
  const mapping = (node: unknown): boolean => {
    if (!isAlias(node)) return isMap(node);
    const target = targetOf(node);
    return target === undefined || isMap(target);
  };
  const resolved = isAlias(value) ? targetOf(value) : value;
  return mapping(value) || (isSeq(resolved) && resolved.items.every(mapping));
}

/**
 * Aliases that refer to no anchor, or to an anchor they sit inside (a cycle: the value would contain itself).
 * A cycle always closes at such an alias: an alias refers only to an anchor set before it, so following
 * aliases from an anchor that does not contain them only ever reaches earlier, finished values. The anchor
 * name is never quoted (`password: *secret` is an alias to YAML). Walked with an explicit stack, so no nesting
 * depth the parser accepted can overflow it.
 */
function checkAliases(doc: Document, lines: LineCounter, namedBesideSecret: ReadonlySet<string>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // The latest node set with each anchor name so far, in document order — what the yaml package resolves to.
  const anchors = new Map<string, unknown>();
  // Collections being walked: the ancestors of the current node.
  const open = new Set<unknown>();
  // What each alias named where it stands (an anchor may be set again later): what toJS resolves it to.
  const targets = new Map<Alias, unknown>();
  // A pair is checked between its key and its value, in document order: an anchor set on an earlier key or value
  // of the same mapping is known by then (`{&k a: 1, *k : 2}` is `a` twice; checked all at once, before any of
  // them was walked, it loaded as `{a: 2}`).
  type Frame =
    | { kind: 'node'; node: unknown; path: string }
    | { kind: 'leave'; node: unknown }
    | { kind: 'pair'; pair: Pair; path: string; at: string; written: Map<string, string> }
    | { kind: 'merge'; pair: Pair; path: string };
  const stack: Frame[] = [{ kind: 'node', node: doc.contents, path: '' }];
  const report = (node: { range?: [number, number, number] | null }, path: string, reason: string): void => {
    const { line, col } = lines.linePos(node.range?.[0] ?? 0);
    problems.push({ path, message: `line ${line}, column ${col}: ${reason}`, line, column: col });
  };
  const checkPair = ({ pair, path, at, written }: Extract<Frame, { kind: 'pair' }>): void => {
    const keyNode = pair.key as { range?: [number, number, number] };
    const key = isAlias(pair.key) ? anchors.get(pair.key.source) : pair.key;
    // Keys as toJS will write them: `1` and `"1"` are two keys to YAML and one to the config, where the second
    // replaced the first without a word.
    const asWritten = writtenKey(key);
    if (asWritten !== undefined) {
      const spelt = spelling(key);
      const first = written.get(asWritten);
      if (first !== undefined) {
        const alike = first === spelt ? '' : ' (keys written differently that read alike, such as 1 and "1" or ~ and "", are one key)';
        report(keyNode, path, `map keys must be unique: this key is already set in the same mapping${alike}`);
      } else {
        written.set(asWritten, spelt);
      }
    }
    // toJS would turn a list or mapping key into text and warn with that text; no config key is one.
    if (isMap(key) || isSeq(key)) report(keyNode, at, 'a key must be plain text, not a list or mapping');
  };
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.kind === 'leave') {
      open.delete(frame.node);
      continue;
    }
    if (frame.kind === 'pair') {
      checkPair(frame);
      continue;
    }
    if (frame.kind === 'merge') {
      // After its value was walked, so the anchors its aliases name are the ones set before them, inside it too.
      // A merge key takes mappings: toJS threw for `<<: 5`, `<<: [1, 2]` or `<<: ~`, and the file got one
      // message without a path or a line.
      if (!mergesMappings(frame.pair.value, (alias) => (targets.has(alias) ? targets.get(alias) : anchors.get(alias.source)))) {
        report(frame.pair.key as { range?: [number, number, number] }, frame.path, 'a merge key (<<) takes a mapping, an alias of one (*name), or a list of them');
      }
      continue;
    }
    const { node, path } = frame;
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      targets.set(node, target);
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
    stack.push({ kind: 'leave', node });
    const written = new Map<string, string>();
    const secretAt = isMap(node) && node.flow === true ? node.items.findIndex((item) => isScalar(item.key) && SECRET_KEYS.includes(String(item.key.value))) : -1;
    // In reverse, one by one (spread into push(), a list of 130,000 items overflowed the call stack): the stack
    // hands them back in document order.
    for (let i = node.items.length - 1; i >= 0; i--) {
      const item: unknown = node.items[i];
      if (isPair(item)) {
        // In `{ …, password: Tr0ub4dor,horse: *x }` an unquoted comma ends the password and makes its rest a key: a
        // problem under a key after the password that is none of the config's words is reported at the mapping (its
        // line and column say where), as the loader reports an unknown key there, never at a path that names the
        // password's rest (found by review).
        const word = isScalar(item.key) ? item.key.value : undefined;
        const named = typeof word === 'symbol' || (typeof word === 'string' && (SECRET_KEYS.includes(word) || namedBesideSecret.has(word)));
        const hidden = secretAt >= 0 && i > secretAt && !named;
        const at = hidden ? path : joinPath(path, keyName(item.key));
        if (isScalar(item.key) && typeof item.key.value === 'symbol') stack.push({ kind: 'merge', pair: item, path });
        stack.push({ kind: 'node', node: item.value, path: at }, { kind: 'pair', pair: item, path, at, written }, { kind: 'node', node: item.key, path: at });
      } else {
        stack.push({ kind: 'node', node: item, path: joinPath(path, i) });
      }
    }
  }
  return problems;
}

/** How a scalar key was given, to tell `1` and `"1"` apart in a message: its type and its text. */
function spelling(key: unknown): string {
  return isScalar(key) ? `${typeof key.value}:${String(key.value)}` : '';
}
