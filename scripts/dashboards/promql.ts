/**
 * Just enough PromQL reading for the asset tests: the metric names a query selects, and the range selectors of
 * its rate-like calls. Not a parser: it relies on queries being valid, which promtool checks separately.
 */

const KEYWORDS = new Set([
  'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset',
  'inf', 'nan', 'atan2',
  // aggregation operators, which may be followed by a `by (…)` clause instead of their argument
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile',
  'limitk', 'limit_ratio',
]);

/** The query with string literals emptied, label matchers and range brackets emptied, and grouping lists dropped. */
function skeleton(expr: string): string {
  return expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1 ');
}

/** The metric names a query selects, each once, in order of appearance. */
export function metricNames(expr: string): string[] {
  const names: string[] = [];
  const text = skeleton(expr);
  for (const match of text.matchAll(/(?<![\w:.])[a-zA-Z_:][\w:]*/g)) {
    const name = match[0];
    const after = text.slice(match.index + name.length);
    if (KEYWORDS.has(name) || /^\s*\(/.test(after)) continue;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The text between the parentheses of each call of `fn` in the query. */
export function callArguments(expr: string, fn: string): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`(?<![\\w:])${fn}\\s*\\(`, 'g');
  for (const match of expr.matchAll(pattern)) {
    const start = match.index + match[0].length;
    let depth = 1;
    let quote: string | undefined;
    let i = start;
    for (; i < expr.length && depth > 0; i += 1) {
      const ch = expr[i];
      if (quote !== undefined) {
        if (ch === '\\') i += 1;
        else if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
      else if (ch === '(') depth += 1;
      else if (ch === ')') depth -= 1;
    }
    found.push(expr.slice(start, i - 1));
  }
  return found;
}

/** The contents of every `[…]` range or subquery selector in the text. */
export function rangeSelectors(expr: string): string[] {
  return [...expr.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1] ?? '');
}

/** True when every parenthesis, brace and bracket outside string literals is closed in order. */
export function isBalanced(expr: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  for (const ch of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if (ch === '(' || ch === '{' || ch === '[') stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) return false;
  }
  return stack.length === 0;
}
