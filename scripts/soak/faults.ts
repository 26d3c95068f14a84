/** The faults a soak run rotates through: each router gets the next one every step, half of them at a time. */
import type { Faults } from '../../src/emulator/index.js';

export interface SoakFault {
  name: string;
  faults?: Faults | Faults[];
  /** Reboot the router (counters fall, uptime restarts) instead of a reply fault. */
  reboot?: boolean;
}

export const FAULT_CYCLE: readonly SoakFault[] = [
  { name: 'clean' },
  { name: 'hang', faults: { hang: true } },
  { name: 'slow-body', faults: { slowBodyMs: 3000 } },
  { name: 'latency', faults: { latencyMs: 400 } },
  { name: '401', faults: { status: { '/': 401 } } },
  { name: '500', faults: { status: { '/': { code: 500, detail: 'std failure: not allowed (9)' } } } },
  { name: '503', faults: { status: { '/': 503 } } },
  { name: 'broken-json', faults: { brokenJson: true } },
  { name: 'truncated', faults: { truncated: true } },
  { name: 'wrong-shape', faults: { wrongShape: true } },
  { name: 'html', faults: { html: true } },
  { name: 'unknown-formats', faults: { unknownFormats: true } },
  { name: 'odd-bytes', faults: [{ invalidUtf8: true }, { controlChars: true }] },
  // Under the 32 MiB cap: a big reply that is read and parsed, every second.
  { name: 'big-peers', faults: { path: 'interface/wireguard/peers', oversizedBytes: 4 * 1024 * 1024 } },
  { name: 'reboot', reboot: true },
];
