import { REPORTED } from './fields.js';
import { joinPath, type Problems } from './problems.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The value of the environment variable `name`, if set: an own string property only. process.env (and a plain
 * object in its place) inherits Object.prototype, so `env.constructor` or `env.hasOwnProperty` is a function:
 * `${constructor}` loaded as "function Object() { [native code] }", and `password_env: hasOwnProperty` crashed
 * the loader with no path.
 */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (!Object.hasOwn(env, name)) return undefined;
  const value = env[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Keys whose value is a secret, or names where one is: a problem there never quotes the value's text. A
 * password_file path is one too: config problems never quote it (config/router.ts), interpolated or not.
 */
const SECRET_KEYS: ReadonlySet<string> = new Set(['password', 'password_env', 'password_file']);

/**
 * Expand `${NAME}` and `${NAME:-default}` in one string; `$$` is a literal `$`, and a `$` not followed by
 * `{` or `$` stays as it is (passwords contain dollars). Like the shell, `:-` also replaces an empty value.
 *
 * A problem never quotes the text inside a rejected `${…}`: in a password, `Tr0ub4dor${&3 horse}` is not a
 * reference but the password itself. It says where instead (the 1-based character of the `$`). In a secret
 * field even a valid but unset name is not shown: it may be a password pasted where a name belongs.
 */
export function interpolateString(
  text: string,
  env: NodeJS.ProcessEnv,
  path: string,
  problems: Problems,
  secret = false,
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
    const value = envValue(env, name);
    const at = `the \${…} at character ${dollar + 1}`;
    if (!NAME.test(name)) {
      problems.add(path, `${at} does not hold a valid environment variable name (letters, digits and _, not starting with a digit; write $$ for a literal $)`);
      ok = false;
    } else if (fallback?.includes('${') === true) {
      problems.add(path, `${at}: a default cannot contain another \${…}`);
      ok = false;
    } else if (value !== undefined && (value !== '' || fallback === undefined)) {
      out += value;
    } else if (fallback !== undefined) {
      out += fallback;
    } else if (secret) {
      problems.add(path, `the environment variable named by ${at} is not set (set it, or give a default: \${NAME:-value})`);
      ok = false;
    } else {
      problems.add(path, `environment variable ${name} is not set (set it, or give a default: \${${name}:-value})`);
      ok = false;
    }
    i = close + 1;
  }
  return ok ? out + text.slice(i) : undefined;
}

/** A copy of a parsed YAML tree with every string value interpolated; keys are left alone. */
export function interpolateTree(value: unknown, env: NodeJS.ProcessEnv, path: string, problems: Problems, secret = false): unknown {
  if (typeof value === 'string') return interpolateString(value, env, path, problems, secret) ?? REPORTED;
  if (Array.isArray(value)) return value.map((item, i) => interpolateTree(item, env, joinPath(path, i), problems, secret));
  if (value !== null && typeof value === 'object') {
    // Own properties whatever the key, as the YAML parser makes them: `copy[key] =` would make a `__proto__` key
    // (a peer may be called that) the copy's prototype, or drop it, rather than keep it as written.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateTree(item, env, joinPath(path, key), problems, secret || SECRET_KEYS.has(key))]),
    );
  }
  return value;
}
