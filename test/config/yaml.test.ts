/**
 * The loader's contract for any text: a config loads, or every problem comes back as a ConfigError. Nothing
 * else may escape — not a stack overflow from a cyclic alias, not a TypeError from an odd shape — because
 * check-config, the start and every reload rely on it to say where the file is wrong.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { checkConfigFile, ConfigError, resolveConfig, type ConfigProblem } from '../../src/config/index.js';
import { configFromText } from '../../src/config/load.js';
import { SETTINGS_KEYS } from '../../src/config/settings.js';
import { TOP_KEYS } from '../../src/config/resolve.js';

const OPTIONS = { source: 'test.yml', baseDir: '/etc/routeros-exporter', env: { PW: 'x' }, readFile: () => 'file\n' };

/** The problems of config text, [] when it loads; anything but a ConfigError fails the test. */
function problemsOfText(text: string): ConfigProblem[] {
  try {
    configFromText(text, OPTIONS);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

const ROUTER = 'routers:\n  - name: hq\n    url: https://192.0.2.1\n';

describe('YAML aliases', () => {
  it.each<[string, string, string]>([
    ['an anchored mapping holding its own alias', 'defaults: &d\n  username: monitor\n  password: secret\n  labels: { site: *d }\n' + ROUTER, 'defaults.labels.site'],
    ['an anchored list holding its own alias', 'a: &a [*a]\n', 'a[0]'],
    ['an alias deep inside its anchor', 'defaults: &d { username: u, password: p, health: { expect: { x: [1, *d] } } }\n' + ROUTER, 'defaults.health.expect.x[1]'],
    ['a merge key of its own anchor', 'defaults: &d { username: u, password: p, <<: *d }\n' + ROUTER, 'defaults["<<"]'],
  ])('refuses %s as a cycle, at the alias that closes it', (_what, text, path) => {
    const problems = problemsOfText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe(path);
    expect(problems[0]?.message).toMatch(/^line \d+, column \d+: an alias \(\*name\) inside the anchor \(&name\) it refers to: the value would contain itself$/);
  });

  it('still accepts an alias to an earlier anchor, the same one many times', () => {
    const text = 'defaults: { username: u, password: p, labels: &l { site: a } }\nrouters:\n  - { name: a, url: "https://192.0.2.1", labels: *l }\n  - { name: b, url: "https://192.0.2.2", labels: *l }\n';
    expect(problemsOfText(text)).toEqual([]);
  });

  it('reports an alias to no anchor where it is, without its name', () => {
    const problems = problemsOfText('defaults:\n  username: monitor\n  password: *Xk9pQ7secret\n' + ROUTER);
    expect(problems).toEqual([
      {
        path: 'defaults.password',
        message: 'line 3, column 13: an alias (*name) refers to no anchor (&name) set before it (quote a value that starts with *)',
        line: 3,
        column: 13,
      },
    ]);
  });

  it('check-config gets a cycle as a problem of the file (it exits 2), not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routeros-config-'));
    writeFileSync(join(dir, 'config.yml'), 'defaults: &d\n  username: monitor\n  password: secret\n  labels: { site: *d }\n' + ROUTER);
    const problems = await checkConfigFile(join(dir, 'config.yml'), {});
    expect(problems).toMatchObject([{ path: 'defaults.labels.site', line: 4, column: 19 }]);
  });
});

/** Pieces of YAML that matter to the parser and the loader: anchors, aliases, merges, flow and block syntax. */
const TOKEN = fc.constantFrom(
  ...['a', 'b', 'routers', 'defaults', 'listen', 'labels', 'ping', 'name', 'url', 'password', 'health', 'expect', 'profiles'],
  ...[': ', ':', '- ', '\n', '\n  ', '\n    ', '  ', '[', ']', '{', '}', ', ', '&a ', '&b ', '*a', '*b', '<<: ', '"', "'", '!', '!!str ', '!!map ', '? '],
  ...['1', '0x1F', '1e3', '.nan', 'null', '~', 'true', 'hq', 'https://192.0.2.1', '10.0.0.1', '${PW}', '${X', '$$', '*/5 * * * * *', '---\n', '...\n', '#c', '%YAML 1.2\n', '|\n  x', '>-\n  y'],
);

/** Values of any shape under the keys the loader knows (and some it does not), so validation runs deep. */
const { value: VALUE } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom('hq', 'https://192.0.2.1', '10.0.0.1', '1s', 'always', 'close', '0.0.0.0:9731')),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...TOP_KEYS, ...SETTINGS_KEYS, 'name', 'url', 'target', 'expect', 'probe', 'interfaces'), fc.string()), tie('value'), { maxKeys: 5 }),
  ),
}));

/**
 * Flow-style YAML trees in which any node may carry an anchor and any leaf may be an alias to any anchor name:
 * aliases before, after and inside their anchors, names reused.
 */
const { node: ANCHORED } = fc.letrec((tie) => ({
  node: fc
    .tuple(
      fc.option(fc.constantFrom('&a ', '&b ', '&c '), { nil: '' }),
      fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('*a', '*b', '*c', 'x', '1', 'hq', '"${PW}"', '{}'),
        fc.array(tie('node'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
        fc
          .array(fc.tuple(fc.constantFrom(...TOP_KEYS, 'name', 'url', 'labels', '<<', 'k'), tie('node')), { maxLength: 3 })
          .map((pairs) => `{ ${pairs.map(([key, value]) => `${key}: ${value}`).join(', ')} }`),
      ),
    )
    .map(([anchor, node]) => (node.startsWith('*') ? node : anchor + node)),
}));

describe('the loader on any input', () => {
  it('loads random anchored YAML trees or throws a ConfigError', () => {
    fc.assert(
      fc.property(ANCHORED, (text) => {
        problemsOfText(text);
      }),
      { numRuns: 1500 },
    );
  });

  it('loads random YAML text or throws a ConfigError', () => {
    fc.assert(
      fc.property(fc.array(TOKEN, { maxLength: 40 }), (tokens) => {
        problemsOfText(tokens.join(''));
      }),
      { numRuns: 1500 },
    );
  });

  it('loads random nested structures (as YAML text, and as parsed values) or throws a ConfigError', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...TOP_KEYS), VALUE, { maxKeys: 5 }), (tree) => {
        problemsOfText(stringify(tree));
        try {
          resolveConfig(tree, OPTIONS);
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
        }
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * Text that looks like a password: letters, digits and the punctuation people put in passwords. Its ends mix
 * letters and digits, so finding one in a message cannot be a word of our own wording.
 */
const END = fc.tuple(fc.stringMatching(/^[A-Za-z]{3,5}$/), fc.stringMatching(/^[0-9]{1,3}$/), fc.stringMatching(/^[A-Za-z0-9]{2,4}$/)).map((parts) => parts.join(''));
const SECRET = fc
  .tuple(END, fc.string({ unit: fc.constantFrom(...'Xk9Q7z!#$%&*@^~=+?/.,;:-_()<>[]{}|\'"`\\ '.split('')), maxLength: 10 }), END)
  .map(([head, middle, tail]) => ({ secret: `${head}${middle}${tail}`, ends: [head, tail] }));

/** How a password can sit after `password: ` so that the YAML is broken or means something else. */
const SHAPES: ((secret: string) => string)[] = [
  ...['*', '!', '&', '%', '@', '`', '|', '>', '{', '[', '"', "'", '!!', '? ', '- ', ',', '&a !', '!x &', '*a '].map((lead) => (s: string) => `${lead}${s}`),
  (s) => `"${s}`,
  (s) => `'${s}`,
  (s) => `"\\q${s}"`,
  (s) => `"${s}\\x"`,
  (s) => `[${s}`,
  (s) => `{ ${s}`,
  (s) => `${s}: ${s}`,
  (s) => `[a, b] ${s}`,
  (s) => `!!int ${s}`,
  (s) => `!!map ${s}`,
  (s) => `&${s} &${s} x`,
  (s) => `!${s} !${s} x`,
  (s) => `|${s}`,
  (s) => `>${s}\n    x`,
  (s) => `\n\t${s}`,
  (s) => `\n  ${s}\n ${s}`,
  (s) => `x\n---\n${s}`,
  (s) => `{ [${s}]: 1 }`,
];

describe('YAML errors never carry the source', () => {
  it('a password in any broken shape is never in the message', () => {
    fc.assert(
      fc.property(SECRET, fc.integer({ min: 0, max: SHAPES.length - 1 }), fc.boolean(), ({ secret, ends }, shape, flow) => {
        const value = SHAPES[shape]?.(secret) ?? secret;
        const text = flow
          ? `defaults: { username: monitor, password: ${value} }\n${ROUTER}`
          : `defaults:\n  username: monitor\n  password: ${value}\n${ROUTER}`;
        // Messages, and the paths of YAML-level problems (they have a line). A broken value can also split into
        // keys (`{ password: ab,cd }` sets a key cd) that validation names as unknown: that path is not a YAML error.
        const problems = problemsOfText(text);
        const shown = JSON.stringify(problems.map((p) => (p.line === undefined ? p.message : p)));
        for (const end of ends) expect(shown).not.toContain(end);
      }),
      { numRuns: 3000 },
    );
  });

  it.each<[string, string]>([
    ['an unquoted password that starts with *', 'password: *Xk9pQ7secret'],
    ['an unquoted password that starts with !', 'password: !Xk9pQ7secret'],
    ['a bad escape in a quoted password', 'password: "Xk9pQ7\\qsecret"'],
    ['a password in a list used as a key', 'labels: { [Xk9pQ7secret]: 1 }'],
  ])('%s', (_what, line) => {
    // The yaml package prints its own warnings (a list key, stringified) with process.emitWarning: to stderr.
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const problems = problemsOfText(`defaults:\n  username: monitor\n  ${line}\n${ROUTER}`);
      expect(problems.length).toBeGreaterThan(0);
      expect(JSON.stringify(problems)).not.toMatch(/Xk9pQ7|secret/);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});

describe('a password split by a comma in { … }', () => {
  it.each(['timout', 'usernme', 'labls1'])('a rest that looks like a typo of a known key (%s) is not named either; the suggestion stands', (rest) => {
    const problems = problemsOfText(`routers:\n  - { name: hq, url: "https://192.0.2.1", username: u, password: Tr0ub4dor,${rest}: x }\n`);
    expect(JSON.stringify(problems)).not.toContain(rest);
    expect(problems.some((problem) => problem.path === 'routers[0]' && problem.message.includes('after the password'))).toBe(true);
  });

  it('property: the rest, made a key with no value, is never named', () => {
    const part = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{3,15}$/);
    fc.assert(
      // A rest of digits is an integer-like key, which JavaScript lists before every other key of the mapping.
      fc.property(part, fc.oneof(part.map((tail) => `Q7${tail}`), fc.stringMatching(/^[1-9][0-9]{5,8}$/)), fc.constantFrom('routers', 'defaults'), (first, rest, where) => {
        const mapping = `{ name: hq, url: "https://192.0.2.1", username: u, password: ${first},${rest}${rest.length % 2 === 0 ? ': staple' : ''} }`;
        const text = where === 'routers' ? `routers:\n  - ${mapping}\n` : `defaults: { username: u, password: ${first},${rest} }\n${ROUTER}`;
        const problems = problemsOfText(text);
        expect(problems.length).toBeGreaterThan(0);
        for (const problem of problems) expect(`${problem.path}: ${problem.message}`).not.toContain(rest);
      }),
      { numRuns: 200 },
    );
  });
});
