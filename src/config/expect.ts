/**
 * `health.expect`: what the operator expects of named peers or whole interfaces, overriding the inference
 * from keepalive and traffic (docs/configuration.md). Keys are peer names (or comments) and interface names;
 * a peer's own entry wins over its interface's.
 */
import { joinPath, type Problems } from './problems.js';
import { quoteValue } from './value-error.js';
import { EXPECT_MODES, type ExpectMode } from './types.js';
import { REPORTED } from './fields.js';

function isMode(value: unknown): value is ExpectMode {
  return typeof value === 'string' && (EXPECT_MODES as readonly string[]).includes(value);
}

export function readExpect(value: unknown, path: string, problems: Problems): Record<string, ExpectMode> | undefined {
  if (value === REPORTED) return undefined;
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.add(path, 'must be a mapping of peer or interface names to always, on_demand or auto');
    return undefined;
  }
  // No prototype (as health.probe's map, probe.ts): a peer may be called `__proto__`, whose entry `{}` drops.
  const out = Object.create(null) as Record<string, ExpectMode>;
  let ok = true;
  for (const [name, mode] of Object.entries(value as Record<string, unknown>)) {
    // No peer or interface is named "" (RouterOS refuses an empty name): such a key set nothing, silently (found by
    // a hostile tester).
    if (name === '') {
      ok = false;
      problems.add(joinPath(path, name), 'an empty name names no peer or interface');
      continue;
    }
    if (isMode(mode)) {
      out[name] = mode;
      continue;
    }
    ok = false;
    // An unset ${VAR} was reported where it was expanded.
    if (mode === REPORTED) continue;
    const shown = typeof mode === 'string' ? quoteValue(mode) : String(mode);
    problems.add(joinPath(path, name), `must be one of ${EXPECT_MODES.join(', ')}, not ${shown}`);
  }
  return ok ? out : undefined;
}
