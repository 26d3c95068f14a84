/** `demo`: placeholder until the emulator lands. */
import type { CliOptions } from './args.js';

export async function startDemo(_options: CliOptions): Promise<number> {
  console.error('routeros-exporter: demo is not available in this build yet');
  return 1;
}
