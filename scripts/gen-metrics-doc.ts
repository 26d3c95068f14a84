import { writeFileSync } from 'node:fs';
import { metricsMarkdown } from '../src/metrics/doc.js';

writeFileSync(new URL('../docs/metrics.md', import.meta.url), metricsMarkdown());
console.log('wrote docs/metrics.md');
