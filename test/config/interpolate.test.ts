import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { interpolateString, interpolateTree } from '../../src/config/interpolate.js';
import { Problems } from '../../src/config/problems.js';
import { BASE, firstRouter, problemsOf, resolve } from './helpers.js';

const env = { HOST: 'r1.example', EMPTY: '', PORT: '8443' };

describe('interpolateString', () => {
  it.each<[string, string]>([
    ['plain', 'plain'],
    ['${HOST}', 'r1.example'],
    ['https://${HOST}:${PORT}', 'https://r1.example:8443'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${MISSING:-}', ''],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${EMPTY}', ''],
    ['${HOST:-fallback}', 'r1.example'],
    ['${MISSING:-a:-b}', 'a:-b'],
    ['pa$word', 'pa$word'],
    ['trailing $', 'trailing $'],
    ['$$', '$'],
    ['$${HOST}', '${HOST}'],
    ['$$$${HOST}', '$${HOST}'],
    ['cost: $5', 'cost: $5'],
  ])('%j → %j', (text, expected) => {
    const problems = new Problems();
    expect(interpolateString(text, env, 'x', problems)).toBe(expected);
    expect(problems.list).toEqual([]);
  });

  it.each<[string, string]>([
    ['${MISSING}', 'environment variable MISSING is not set (set it, or give a default: ${MISSING:-value})'],
    ['a ${HOST', 'has "${" without a closing "}" (write $$ for a literal $)'],
    ['${}', 'the ${…} at character 1 does not hold a valid environment variable name'],
    ['${1X}', 'the ${…} at character 1 does not hold a valid environment variable name'],
    ['ab${A-B}', 'the ${…} at character 3 does not hold a valid environment variable name'],
    ['${A:-${B}}', 'a default cannot contain another ${…}'],
  ])('%j is a problem', (text, message) => {
    const problems = new Problems();
    expect(interpolateString(text, env, 'routers[0].url', problems)).toBeUndefined();
    expect(problems.list).toHaveLength(1);
    expect(problems.list[0]?.path).toBe('routers[0].url');
    expect(problems.list[0]?.message).toContain(message);
  });
});

describe('interpolation in a config', () => {
  it('applies to every string value, numbers and booleans included, but not to keys', () => {
    const config = resolve(
      {
        listen: '${LISTEN}',
        defaults: { username: '${USER}', password: '${PW}', timeout: '${TIMEOUT}', tls: { insecure_skip_verify: '${SKIP}' } },
        routers: [{ name: '${NAME}', url: 'https://${HOST}', ping: [{ target: '${TARGET}', count: '${COUNT}' }] }],
      },
      {
        env: { LISTEN: ':9100', USER: 'mon', PW: 'p$w', TIMEOUT: '5s', SKIP: 'true', NAME: 'hq', HOST: '192.0.2.9', TARGET: '10.0.0.1', COUNT: '7' },
      },
    );
    const router = firstRouter(config);
    expect(config.listen).toBe(':9100');
    expect(router).toMatchObject({ name: 'hq', url: 'https://192.0.2.9', username: 'mon', timeoutSeconds: 5 });
    expect(router.tls.insecureSkipVerify).toBe(true);
    expect(router.ping[0]).toMatchObject({ target: '10.0.0.1', count: 7 });
    // The value is not interpolated again: a `$` inside an environment variable stays.
    expect(router.password.reveal()).toBe('p$w');
  });

  it('reports an unset variable once, at its path, without a follow-up complaint about the value', () => {
    expect(problemsOf({ ...BASE, defaults: { ...BASE.defaults, timeout: '${T}' } })).toEqual([
      { path: 'defaults.timeout', message: 'environment variable T is not set (set it, or give a default: ${T:-value})' },
    ]);
  });
});

describe('interpolateTree', () => {
  it("keeps every key of the parsed YAML as an own key, Object.prototype's names too", () => {
    // Keys that are special on a plain object, mixed with ordinary ones, at any depth.
    const key = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'name', 'x');
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, fc.boolean(), fc.integer(), fc.constant('text'), fc.array(tie('tree'), { maxLength: 3 }), fc.dictionary(key, tie('tree'), { maxKeys: 4 })),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        // A JSON round trip makes every key an own data property, as the YAML parser does.
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        const copy = interpolateTree(parsed, {}, '', new Problems());
        expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
      }),
    );
  });

  it('so a __proto__ key is refused as unknown where keys are fixed, not taken as the mapping to inherit from', () => {
    const raw = parse(
      ['defaults: {username: u, password: p}', 'routers:', '  - {name: hq, url: "https://192.0.2.1", __proto__: {timeout: 5s}}', '__proto__: {x: 1}'].join('\n'),
    ) as unknown;
    expect(problemsOf(raw).map((problem) => `${problem.path}: ${problem.message}`)).toEqual(['routers[0].__proto__: unknown key', '__proto__: unknown key']);
  });
});

describe('problems about references in secret fields', () => {
  /** Password-like text: mixed letters and digits at both ends (never a word of ours), anything in between. */
  const END = fc.tuple(fc.stringMatching(/^[A-Za-z]{3,5}$/), fc.stringMatching(/^[0-9]{1,3}$/)).map((parts) => parts.join(''));
  const SECRET = fc
    .tuple(END, fc.string({ unit: fc.constantFrom(...'ab9 !#%&*@^~=+?/.,;:-_()<>[]|\'"`\\'.split('')), maxLength: 8 }), END)
    .map(([head, middle, tail]) => ({ text: `${head}${middle}${tail}`, ends: [head, tail] }));

  function messagesOf(raw: unknown): string {
    return JSON.stringify(problemsOf(raw, { env: {} }));
  }

  it('never quote the text inside ${…} in a password, valid name or not, set default or not', () => {
    fc.assert(
      fc.property(SECRET, fc.constantFrom('${%s}', 'pre${%s}', '${%s:-${X}}', '${%s', 'x${%s}y${%s}', '${%s:-${%s}}'), fc.boolean(), ({ text, ends }, shape, bt) => {
        const password = shape.replaceAll('%s', text);
        const raw = bt
          ? { ...BASE, routers: [{ name: 'hq', url: 'https://192.0.2.1', bandwidth_test: [{ target: '10.0.0.1', duration: '5s', password }] }] }
          : { ...BASE, defaults: { ...BASE.defaults, password } };
        let shown: string;
        try {
          shown = messagesOf(raw);
        } catch (error) {
          if (error instanceof Error && error.message === 'expected a ConfigError') return; // it loaded: nothing to show
          throw error;
        }
        for (const end of ends) expect(shown).not.toContain(end);
      }),
      { numRuns: 1000 },
    );
  });

  it('never quote a password_env value, whether it is a name or a pasted password', () => {
    fc.assert(
      fc.property(SECRET, fc.boolean(), ({ text, ends }, plain) => {
        // A plain password ([A-Za-z0-9_]) passes as a name and is then unset; any other is not a name.
        const value = plain ? text.replace(/[^A-Za-z0-9_]/g, '_') : text;
        const shown = messagesOf({ ...BASE, defaults: { username: 'monitor', password_env: value } });
        for (const end of ends) expect(shown).not.toContain(end);
      }),
      { numRuns: 500 },
    );
  });

  it('never quote a password_file path pasted as ${…}, as password_env is not (found by review)', () => {
    fc.assert(
      fc.property(SECRET, ({ text, ends }) => {
        const shown = messagesOf({ ...BASE, defaults: { username: 'monitor', password_file: `\${${text.replace(/[^A-Za-z0-9_]/g, '_')}}` } });
        for (const end of ends) expect(shown).not.toContain(end.replace(/[^A-Za-z0-9_]/g, '_'));
      }),
      { numRuns: 200 },
    );
  });

  it('say where, not what: the reviewer’s password', () => {
    expect(problemsOf({ ...BASE, defaults: { ...BASE.defaults, password: 'Tr0ub4dor${&3 horse battery staple}' } })).toEqual([
      {
        path: 'defaults.password',
        message: 'the ${…} at character 10 does not hold a valid environment variable name (letters, digits and _, not starting with a digit; write $$ for a literal $)',
      },
    ]);
    expect(problemsOf({ ...BASE, defaults: { username: 'monitor', password_env: 'hunter2!secret' } })).toEqual([
      {
        path: 'defaults.password_env',
        message: 'is not an environment variable name (letters, digits and _, not starting with a digit): give the name of the variable that holds the password',
      },
    ]);
  });
});
