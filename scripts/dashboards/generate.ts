/**
 * Writes every generated monitoring asset: the Grafana dashboards and the Kubernetes PrometheusRule.
 *
 *   npx tsx scripts/dashboards/generate.ts           write the files
 *   npx tsx scripts/dashboards/generate.ts --check   write nothing; exit 1 and name the files that are stale
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderedDashboards } from './dashboards.js';
import { PROMETHEUS_RULE_PATH, renderPrometheusRule } from './prometheusrule.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Repository-relative path → content of every generated file. */
function generatedFiles(repoRoot: string): Map<string, string> {
  const files = renderedDashboards();
  files.set(PROMETHEUS_RULE_PATH, renderPrometheusRule(repoRoot));
  return files;
}

function main(): number {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const [path, content] of generatedFiles(root)) {
    const file = join(root, path);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (current === content) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  for (const path of stale) console.log(`${check ? 'stale' : 'wrote'} ${path}`);
  if (stale.length === 0) console.log('all generated files are current');
  return check && stale.length > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main();
}
