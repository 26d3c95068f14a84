/** One problem found in a config file: `path` is like `routers[2].ping[0].count`. */
export interface ConfigProblem {
  path: string;
  message: string;
  /** 1-based position in the file, for YAML syntax errors (the path is then empty). */
  line?: number;
  column?: number;
}

/**
 * The most problems a refused config lists; a last one says how many more were found. A config with more has the
 * same few mistakes many times over (a bad value aliased everywhere), and a list of 2 million (found by review) was
 * a reload answer of hundreds of MB and a log line over what the logger holds, dropped: the refusal was never logged.
 */
export const MAX_PROBLEMS_LISTED = 500;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  readonly problems: ConfigProblem[];
  readonly source: string;

  /** `found`: how many problems were found, when `problems` holds only the first of them (Problems keeps a few). */
  constructor(source: string, problems: ConfigProblem[], found = problems.length) {
    const total = Math.max(found, problems.length);
    const listed = problems.slice(0, MAX_PROBLEMS_LISTED);
    const more = total - listed.length;
    if (more > 0) listed.push({ path: '', message: `and ${more} more problem(s) not listed: the first ${listed.length} found are` });
    super(`${source}: ${total} problem(s):\n` + listed.map((p) => `  ${p.path === '' ? '' : `${p.path}: `}${p.message}`).join('\n'));
    this.problems = listed;
    this.source = source;
  }
}

/**
 * Collects the problems of one config, so a user sees them in one run (STYLE rule 7): every one counted, the first
 * few kept (ConfigError lists no more, and says how many it left out).
 */
export class Problems {
  readonly list: ConfigProblem[] = [];
  #count = 0;

  add(path: string, message: string): void {
    this.#count++;
    // Twice what is listed: duplicates are dropped and the rest sorted into document order before the cut.
    if (this.list.length < 2 * MAX_PROBLEMS_LISTED) this.list.push({ path, message });
  }

  /** How many problems were found, kept or not: what tells whether a part of the config added one. */
  get count(): number {
    return this.#count;
  }

  get empty(): boolean {
    return this.#count === 0;
  }
}

/** Keys longer than any the config knows are cut to this in paths: a path is printed with every problem under it. */
const LONGEST_KEY_SHOWN = 64;
/** Where a cut key ends (or an odd one: it may be a secret's rest, see fields.ts). */
const KEY_CUT_AT = 40;

/**
 * `routers` + 2 → `routers[2]`, `routers[2]` + `ping` → `routers[2].ping`; odd keys are quoted and cut, and so
 * are long ones (a key of a million letters was printed whole, in a path, with every problem under it).
 */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (!/^[A-Za-z0-9_-]+$/.test(key)) return `${base}[${JSON.stringify(key.slice(0, KEY_CUT_AT))}]`;
  if (key.length > LONGEST_KEY_SHOWN) return `${base}[${JSON.stringify(`${key.slice(0, KEY_CUT_AT)}…`)}]`;
  return base === '' ? key : `${base}.${key}`;
}

/** What `check-config` prints: one line per problem, `<file>: <path>: <message>`. */
export function formatProblems(source: string, problems: ConfigProblem[]): string {
  return problems
    .map((problem) =>
      problem.path === '' ? `${source}: ${problem.message}` : `${source}: ${problem.path}: ${problem.message}`,
    )
    .join('\n');
}

/** Paths of every value in a tree, in document order. */
function documentOrder(tree: unknown, path: string, order: Map<string, number>): void {
  order.set(path, order.size);
  if (Array.isArray(tree)) tree.forEach((item, i) => documentOrder(item, joinPath(path, i), order));
  else if (tree !== null && typeof tree === 'object') {
    for (const [key, item] of Object.entries(tree)) documentOrder(item, joinPath(path, key), order);
  }
}

/** `routers[0].tls.ca_file` → `routers[0].tls` → `routers[0]` → `routers` → ``. */
function parentPath(path: string): string {
  return path.replace(/(?:\.[A-Za-z0-9_-]+|\[[^\]]*\])$/, '');
}

/**
 * Problems sorted the way a user reads the file: by the position of the value they are about (or its
 * nearest parent, for a missing key), keeping discovery order among problems about the same place.
 */
export function sortByDocument(problems: readonly ConfigProblem[], tree: unknown): ConfigProblem[] {
  const order = new Map<string, number>();
  documentOrder(tree, '', order);
  const position = (path: string): number => {
    for (let p = path; ; p = parentPath(p)) {
      const found = order.get(p);
      if (found !== undefined) return found;
      if (p === '' || parentPath(p) === p) return 0;
    }
  };
  return problems
    .map((problem, i) => ({ problem, i, at: position(problem.path) }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map(({ problem }) => problem);
}
