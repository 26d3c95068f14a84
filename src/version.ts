/** The package version, read once from package.json (one level above both src/ and dist/). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const parsed = JSON.parse(text) as { version?: unknown };
    return typeof parsed.version === 'string' ? parsed.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const VERSION = readVersion();
