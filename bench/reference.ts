/**
 * How fast the machine is while the bench runs, so that CPU figures can be read across days: on the shared VM
 * the figures are recorded on, the same build's fleet cycle took 1.3–2.1 s of CPU on some days and 3.9–4.1 s on
 * others. A fixed workload of the kinds of work a collection cycle does — parsing router replies, building and
 * deflating exposition lines, sealing TLS records, short-lived objects for the garbage collector — timed in CPU
 * (user + system) in the bench's own process, which is the exporter's Node.js, while nothing else of the bench
 * runs. A run's collection CPU divided by it is comparable across days as far as the two mixes match; both
 * figures are printed, neither replaces the other.
 */
import { createCipheriv } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';

/** Rounds of the workload timed; the median is the figure (a single round moves with the VM's neighbours). */
export const REFERENCE_ROUNDS = 3;

/** A WireGuard public key's shape: 32 bytes in base64, made from the index so the text is the same every run. */
function keyOf(index: number): string {
  const bytes = Buffer.alloc(32);
  for (let at = 0; at < 32; at++) bytes[at] = (index * 131 + at * 197) & 0xff;
  return bytes.toString('base64');
}

/**
 * The work, once: ~0.3–0.5 s of CPU on the reference machine. Returns a checksum of what it computed, which is the
 * same on every run (so that none of it can be optimised away, and a test can hold it fixed).
 */
export function referenceWorkload(): number {
  let checksum = 0;
  // 1,000 peer records as RouterOS sends them (every value a string under its name), parsed twenty times:
  // a 200-router fleet's wireguard replies.
  const records = Array.from({ length: 1_000 }, (_, index) => ({
    '.id': `*${index.toString(16).toUpperCase()}`,
    interface: 'wg0',
    'public-key': keyOf(index),
    'endpoint-address': `192.0.2.${index % 250}`,
    'endpoint-port': String(13_231 + (index % 7)),
    'allowed-address': `10.${index >> 8}.${index & 0xff}.0/24`,
    rx: String(index * 123_457),
    tx: String(index * 654_321),
    'last-handshake': `${index % 60}s`,
    disabled: 'false',
    comment: `customer ${index}`,
  }));
  const text = JSON.stringify(records);
  for (let round = 0; round < 20; round++) {
    const parsed = JSON.parse(text) as { rx: string }[];
    for (const record of parsed) checksum = (checksum + record.rx.length) | 0;
  }
  // 20,000 exposition lines built as strings, then deflated at level 1 ten times: a collection's families.
  const lines: string[] = [];
  for (let index = 0; index < 20_000; index++) {
    lines.push(`routeros_wireguard_peer_receive_bytes_total{router="r${index % 2_000}",interface="wg0",public_key="${keyOf(index % 4_000)}"} ${index * 7_919}`);
  }
  const body = Buffer.from(lines.join('\n'), 'utf8');
  for (let round = 0; round < 10; round++) checksum = (checksum + deflateRawSync(body, { level: 1 }).length) | 0;
  // 16,000 records of 256 bytes sealed with AES-128-GCM: two fleet cycles' requests, as TLS writes them.
  const key = Buffer.alloc(16, 7);
  const record = Buffer.alloc(256, 0x61);
  for (let index = 0; index < 16_000; index++) {
    const iv = Buffer.alloc(12);
    iv.writeUInt32BE(index, 8);
    const cipher = createCipheriv('aes-128-gcm', key, iv);
    const sealed = cipher.update(record);
    cipher.final();
    checksum = (checksum + (sealed[index % 256] as number) + (cipher.getAuthTag()[0] as number)) | 0;
  }
  return checksum;
}

/** CPU milliseconds of each round of the workload, in this process, after one round untimed (the JIT's warm-up). */
export function referenceCpuMs(rounds = REFERENCE_ROUNDS): number[] {
  referenceWorkload();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    referenceWorkload();
    const spent = process.cpuUsage(before);
    samples.push((spent.user + spent.system) / 1000);
  }
  return samples;
}
