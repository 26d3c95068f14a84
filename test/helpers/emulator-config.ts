/** Writes the emulator's CA to a temp file and builds exporter configs pointing at its routers. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Emulator } from '../../src/emulator/index.js';

export function writeCa(emulator: Emulator): string {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-ca-'));
  const path = join(dir, 'ca.pem');
  writeFileSync(path, emulator.ca);
  return path;
}

export function tempFile(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-test-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
