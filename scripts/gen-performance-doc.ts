/** Writes the figures of docs/performance.md from the newest bench/runs/<date>.json (see bench/figures.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { latestRunFile, performanceFigures, withFigures } from '../bench/figures.js';

const doc = new URL('../docs/performance.md', import.meta.url);
const { name, file } = latestRunFile();
writeFileSync(doc, withFigures(readFileSync(doc, 'utf8'), performanceFigures(name, file)));
console.log(`wrote docs/performance.md from bench/runs/${name}`);
