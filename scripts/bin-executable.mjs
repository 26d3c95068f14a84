// Marks the package's commands (package.json "bin") executable after the TypeScript build, which writes plain
// files: `npx routeros-exporter` in a clone runs dist/main.js directly, and npm only sets the bit on install.
import { chmodSync, readFileSync } from 'node:fs';

const { bin } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
for (const path of Object.values(bin)) chmodSync(new URL(`../${path}`, import.meta.url), 0o755);
