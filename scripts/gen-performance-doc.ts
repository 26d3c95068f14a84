/** Writes the figures of docs/performance.md from the newest bench/runs/<date>.json (see bench/figures.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { latestRunFile, performanceFigures, withFigures } from '../bench/figures.js';
import { fleetFigures, latestFleetFile, withFleetFigures } from '../bench/fleet-figures.js';

const doc = new URL('../docs/performance.md', import.meta.url);
const { name, file } = latestRunFile();
let text = withFigures(readFileSync(doc, 'utf8'), performanceFigures(name, file));
// The fleet shape (issue 14) from bench/runs/fleet-<date>.json (see bench/fleet-figures.ts).
const fleet = latestFleetFile();
if (fleet !== undefined) text = withFleetFigures(text, fleetFigures(fleet.name, fleet.file));
writeFileSync(doc, text);
console.log(`wrote docs/performance.md from bench/runs/${name}${fleet === undefined ? '' : ` and bench/runs/${fleet.name}`}`);
