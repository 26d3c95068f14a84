/**
 * The out-of-process control endpoint (only with `control: true`): benchmarks and soak runs change
 * faults or reboot a router over HTTPS. It sits outside /rest, so injected faults never block it.
 *   GET /emulator/faults · POST /emulator/faults (Faults or Faults[]) · DELETE /emulator/faults ·
 *   POST /emulator/reboot (optional body {"raceMs": N}, see RebootOptions) ·
 *   POST /emulator/health (HealthFaults) · POST /emulator/link {"name","up"} · GET /emulator/outside-calls
 */
import { z } from 'zod';
import type { Faults, HealthFaults, RebootOptions } from '../types.js';
import type { Outgoing } from './outgoing.js';

const forcedStatus = z.union([
  z.number().int().min(100).max(599),
  z.strictObject({ code: z.number().int().min(100).max(599), detail: z.string().optional() }),
]);

/**
 * Bounds on numbers (input validation): a test wants seconds of delay or megabytes of body, and a typo like
 * `raceMs: 1e12` (31 years of 401s) or a body of a terabyte must be refused with the reason, not obeyed.
 */
export const MAX_DELAY_MS = 600_000;
export const MAX_OVERSIZED_BYTES = 256 * 1024 * 1024;
const MAX_FAULT_SETS = 100;
const delayMs = z.number().nonnegative().max(MAX_DELAY_MS, `must be at most ${MAX_DELAY_MS} ms (10 minutes)`);

const faultSet = z.strictObject({
  path: z.string().optional(),
  latencyMs: delayMs.optional(),
  hang: z.boolean().optional(),
  closeKept: z.boolean().optional(),
  status: z.record(z.string(), forcedStatus).optional(),
  brokenJson: z.boolean().optional(),
  truncated: z.boolean().optional(),
  oversizedBytes: z.number().int().nonnegative().max(MAX_OVERSIZED_BYTES, `must be at most ${MAX_OVERSIZED_BYTES} (256 MiB)`).optional(),
  valueFloodBytes: z.number().int().nonnegative().max(MAX_OVERSIZED_BYTES, `must be at most ${MAX_OVERSIZED_BYTES} (256 MiB)`).optional(),
  wrongShape: z.boolean().optional(),
  html: z.boolean().optional(),
  slowBodyMs: delayMs.optional(),
  invalidUtf8: z.boolean().optional(),
  controlChars: z.boolean().optional(),
  unknownFormats: z.boolean().optional(),
  reply: z
    .strictObject({
      status: z.number().int().min(200).max(399),
      body: z.enum(['empty', 'data']).optional(),
      contentType: z.string().max(200).optional(),
      location: z.string().max(2048).optional(),
      text: z.string().max(65_536).optional(),
    })
    .optional(),
  echoAuthorization: z.boolean().optional(),
  noisyErrorChars: z.number().int().nonnegative().max(16 * 1024 * 1024).optional(),
});

// Checked as a list or as one set, not as a union: a union's error says only "Invalid input".
const faultList = z.array(faultSet).max(MAX_FAULT_SETS, `at most ${MAX_FAULT_SETS} fault sets`);

const rebootBody = z.strictObject({ raceMs: delayMs.int().optional() });

const unitNumbers = z.array(z.number().int().min(1).max(64)).max(64);
const healthBody = z.strictObject({
  temperatureRiseC: z.number().min(-100).max(200).optional(),
  failedFans: unitNumbers.optional(),
  failedPsus: unitNumbers.optional(),
});
const linkBody = z.strictObject({ name: z.string().min(1).max(200), up: z.boolean() });

export interface Controllable {
  faults(): readonly Faults[];
  setFaults(faults: Faults | Faults[]): void;
  clearFaults(): void;
  reboot(options: RebootOptions): void;
  setHealth(faults: HealthFaults): void;
  setLink(name: string, up: boolean): boolean;
  outsideCalls(): readonly string[];
}

/** The body as JSON (an empty body is `{}`), or undefined when it is not JSON. */
function jsonBody(body: string): unknown {
  if (body.trim() === '') return {};
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

const out = (status: number, value?: unknown): Outgoing => ({
  status,
  contentType: 'application/json',
  body: Buffer.from(value === undefined ? '' : JSON.stringify(value)),
});

export function controlEndpoint(target: Controllable): (method: string, path: string, body: string) => Promise<Outgoing> {
  return (method, path, body) => {
    const route = `${method} ${path.replace(/\/+$/, '')}`;
    switch (route) {
      case 'GET /emulator/faults':
        return Promise.resolve(out(200, target.faults()));
      case 'DELETE /emulator/faults':
        target.clearFaults();
        return Promise.resolve(out(204));
      case 'POST /emulator/reboot': {
        const result = rebootBody.safeParse(jsonBody(body));
        if (!result.success) return Promise.resolve(out(400, { error: z.prettifyError(result.error) }));
        target.reboot(result.data);
        return Promise.resolve(out(204));
      }
      case 'GET /emulator/outside-calls':
        return Promise.resolve(out(200, target.outsideCalls()));
      case 'POST /emulator/health': {
        const result = healthBody.safeParse(jsonBody(body));
        if (!result.success) return Promise.resolve(out(400, { error: z.prettifyError(result.error) }));
        target.setHealth(result.data);
        return Promise.resolve(out(204));
      }
      case 'POST /emulator/link': {
        const result = linkBody.safeParse(jsonBody(body));
        if (!result.success) return Promise.resolve(out(400, { error: z.prettifyError(result.error) }));
        if (!target.setLink(result.data.name, result.data.up)) return Promise.resolve(out(404, { error: `no interface ${result.data.name}` }));
        return Promise.resolve(out(204));
      }
      case 'POST /emulator/faults': {
        const parsed = jsonBody(body);
        if (parsed === undefined) return Promise.resolve(out(400, { error: 'body is not JSON' }));
        const result = Array.isArray(parsed) ? faultList.safeParse(parsed) : faultSet.safeParse(parsed);
        if (!result.success) return Promise.resolve(out(400, { error: z.prettifyError(result.error) }));
        target.setFaults(result.data);
        return Promise.resolve(out(204));
      }
      default:
        return Promise.resolve(out(404, { error: `no control route ${route}` }));
    }
  };
}
