/**
 * Just enough PromQL and Markdown reading to lint the rules: the metric names an expression selects, the
 * queries embedded in alert templates, the metric names docs/metrics.md documents, and GitHub heading anchors.
 */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan']);

/** Metric names selected by a PromQL expression (functions, aggregations, keywords and label names left out). */
export function metricNames(expr: string): string[] {
  const stripped = expr
    // String literals first, so that braces or brackets inside them cannot confuse what follows.
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\b(?:group_left|group_right)\b/g, ' ');
  const names = new Set<string>();
  // A number or duration is skipped whole, so that `5m` or `1e3` never yields an identifier.
  for (const m of stripped.matchAll(/(\d[\w.]*)|([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const name = m[2];
    if (name === undefined || m[3] !== undefined || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names].sort();
}

/** The PromQL queries an annotation template runs: every `printf` format string written in backquotes. */
export function templateQueries(template: string): string[] {
  return [...template.matchAll(/printf\s+`([^`]*)`/g)].map((m) => (m[1] ?? '').replaceAll('%q', '"x"'));
}

/** Number of `query` calls in a template, to make sure none escapes templateQueries. */
export function templateQueryCalls(template: string): number {
  return [...template.matchAll(/\|\s*query\b/g)].length;
}

/**
 * The metric names docs/metrics.md documents: the backquoted first cell of every table row under a heading that
 * ends in "metrics" ("## Router metrics", "## Exporter metrics"). Other tables (the names of the contract draft
 * and why they changed) are not served names and are left out.
 */
export function documentedMetricNames(markdown: string): Set<string> {
  const names = new Set<string>();
  let inMetrics = false;
  for (const line of markdown.split('\n')) {
    const heading = /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (heading?.[1] !== undefined) inMetrics = /metrics$/i.test(heading[1]);
    const row = /^\|\s*`([a-z_:][a-z0-9_:]*)`\s*\|/.exec(line);
    if (inMetrics && row?.[1] !== undefined) names.add(row[1]);
  }
  return names;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces turned into hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Anchors of every Markdown heading outside fenced code blocks. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!fenced && m?.[1] !== undefined) anchors.add(headingAnchor(m[1]));
  }
  return anchors;
}
