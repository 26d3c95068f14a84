import { REPORTED } from './fields.js';
import { joinPath, type Problems } from './problems.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expand `${NAME}` and `${NAME:-default}` in one string; `$$` is a literal `$`, and a `$` not followed by
 * `{` or `$` stays as it is (passwords contain dollars). Like the shell, `:-` also replaces an empty value.
 */
export function interpolateString(
  text: string,
  env: NodeJS.ProcessEnv,
  path: string,
  problems: Problems,
): string | undefined {
  let out = '';
  let ok = true;
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf('$', i);
    if (dollar === -1) break;
    out += text.slice(i, dollar);
    const next = text[dollar + 1];
    if (next === '$') {
      out += '$';
      i = dollar + 2;
      continue;
    }
    if (next !== '{') {
      out += '$';
      i = dollar + 1;
      continue;
    }
    const close = text.indexOf('}', dollar + 2);
    if (close === -1) {
      problems.add(path, 'has "${" without a closing "}" (write $$ for a literal $)');
      return undefined;
    }
    const inner = text.slice(dollar + 2, close);
    const split = inner.indexOf(':-');
    const name = split === -1 ? inner : inner.slice(0, split);
    const fallback = split === -1 ? undefined : inner.slice(split + 2);
    const value = env[name];
    if (!NAME.test(name)) {
      problems.add(path, `\${${name.slice(0, 40)}}: not a valid environment variable name`);
      ok = false;
    } else if (fallback?.includes('${') === true) {
      problems.add(path, `\${${name}:-…}: a default cannot contain another \${…}`);
      ok = false;
    } else if (value !== undefined && (value !== '' || fallback === undefined)) {
      out += value;
    } else if (fallback !== undefined) {
      out += fallback;
    } else {
      problems.add(path, `environment variable ${name} is not set (set it, or give a default: \${${name}:-value})`);
      ok = false;
    }
    i = close + 1;
  }
  return ok ? out + text.slice(i) : undefined;
}

/** A copy of a parsed YAML tree with every string value interpolated; keys are left alone. */
export function interpolateTree(value: unknown, env: NodeJS.ProcessEnv, path: string, problems: Problems): unknown {
  if (typeof value === 'string') return interpolateString(value, env, path, problems) ?? REPORTED;
  if (Array.isArray(value)) return value.map((item, i) => interpolateTree(item, env, joinPath(path, i), problems));
  if (value !== null && typeof value === 'object') {
    // Own properties whatever the key, as the YAML parser makes them: `copy[key] =` would make a `__proto__` key
    // (a peer may be called that) the copy's prototype, or drop it, rather than keep it as written.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateTree(item, env, joinPath(path, key), problems)]));
  }
  return value;
}
