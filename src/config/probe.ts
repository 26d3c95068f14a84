/**
 * The data-plane probe settings (docs/configuration.md#health): `health.probe_tunnels` (the router-wide default:
 * auto, true, false), `health.probe` (peer or interface names → on/off, shaped like `health.expect`; a peer's own
 * entry wins over its interface's) and `health.probe_count` (pings per probe, 1–3).
 */
import { joinPath, Problems } from './problems.js';
import { quoteValue } from './value-error.js';
import { PROBE_COUNT_MAX, type ProbeDefault } from './types.js';
import { readInteger, REPORTED } from './fields.js';

/** YAML 1.2 reads `on`/`off` as text and `true`/`false` as booleans: both mean the same here. */
function onOff(value: unknown): boolean | undefined {
  if (value === true || value === 'on' || value === 'true') return true;
  if (value === false || value === 'off' || value === 'false') return false;
  return undefined;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? quoteValue(value) : String(value);
}

/** `probe_tunnels`: `true`/`false` as before (every peer expected up / none), or `auto` (declared always-on). */
export function readProbeDefault(value: unknown, path: string, problems: Problems): ProbeDefault | undefined {
  if (value === REPORTED) return undefined;
  if (value === 'auto') return 'auto';
  const on = onOff(value);
  if (on !== undefined) return on ? 'on' : 'off';
  problems.add(path, `must be auto, true or false, not ${shown(value)}`);
  return undefined;
}

export function readProbeMap(value: unknown, path: string, problems: Problems): Record<string, boolean> | undefined {
  if (value === REPORTED) return undefined;
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.add(path, 'must be a mapping of peer or interface names to on or off');
    return undefined;
  }
  // No prototype: a peer may be called `__proto__` or `constructor`.
  const out = Object.create(null) as Record<string, boolean>;
  let ok = true;
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const on = onOff(raw);
    if (on !== undefined) {
      out[name] = on;
      continue;
    }
    ok = false;
    // An unset ${VAR} was reported where it was expanded.
    if (raw === REPORTED) continue;
    problems.add(joinPath(path, name), `must be on or off, not ${shown(raw)}`);
  }
  return ok ? out : undefined;
}

export function readProbeCount(value: unknown, path: string, problems: Problems): number | undefined {
  if (value === REPORTED) return undefined;
  // Read into a scratch list, so the message can say why the bound is low.
  const local = new Problems();
  const count = readInteger(value, path, local, { min: 1, max: PROBE_COUNT_MAX });
  for (const problem of local.list) {
    problems.add(path, `${problem.message} (pings per probe: a probe says whether traffic passes, a ping target measures loss)`);
  }
  return count;
}
