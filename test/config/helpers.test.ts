import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatProblems, isPlainHttp } from '../../src/config/index.js';
import { checkRouterUrl, isHostName, listenProblem } from '../../src/config/net.js';
import { parseListen } from '../../src/server/listen.js';
import { joinPath, sortByDocument } from '../../src/config/problems.js';
import { suggest } from '../../src/config/suggest.js';
import { cpuTimed } from '../helpers/cpu-time.js';

describe('formatProblems', () => {
  it('prints one line per problem as "<file>: <path>: <message>"', () => {
    expect(
      formatProblems('/etc/c.yml', [
        { path: 'routers[0].pasword', message: 'unknown key (did you mean "password"?)' },
        { path: '', message: 'line 3, column 1: Map keys must be unique', line: 3, column: 1 },
      ]),
    ).toBe(
      '/etc/c.yml: routers[0].pasword: unknown key (did you mean "password"?)\n/etc/c.yml: line 3, column 1: Map keys must be unique',
    );
    expect(formatProblems('c.yml', [])).toBe('');
  });
});

describe('joinPath', () => {
  it.each<[string, string | number, string]>([
    ['', 'routers', 'routers'],
    ['routers', 2, 'routers[2]'],
    ['routers[2]', 'ping', 'routers[2].ping'],
    ['defaults', 'odd key', 'defaults["odd key"]'],
    ['', 'a.b', '["a.b"]'],
  ])('%j + %j → %j', (base, key, path) => {
    expect(joinPath(base, key)).toBe(path);
  });
});

describe('sortByDocument', () => {
  it('orders problems by where their value (or its parent) appears', () => {
    const tree = { listen: 'x', routers: [{ name: 'a', url: 'u' }, { name: 'b' }] };
    const sorted = sortByDocument(
      [
        { path: 'routers[1].url', message: 'missing' },
        { path: 'routers[0].url', message: 'bad' },
        { path: 'listen', message: 'bad' },
        { path: 'routers[0].name', message: 'bad' },
      ],
      tree,
    );
    expect(sorted.map((p) => p.path)).toEqual(['listen', 'routers[0].name', 'routers[0].url', 'routers[1].url']);
  });
});

describe('suggest', () => {
  it.each<[string, string | undefined]>([
    ['pasword', 'password'],
    ['Password', 'password'],
    ['passwrod', 'password'],
    ['timout', 'timeout'],
    ['password-file', 'password_file'],
    ['scheduels', 'schedules'],
    ['foo', undefined],
    ['x', undefined],
  ])('%s → %s', (word, expected) => {
    expect(suggest(word, ['password', 'password_file', 'password_env', 'timeout', 'schedules', 'tls'])).toBe(expected);
  });

  /** The whole table, as the function kept it before: what its three rows and its length bound must agree with. */
  function fullTable(word: string, known: readonly string[]): string | undefined {
    const a = word.toLowerCase().replaceAll('-', '_');
    let best: string | undefined;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (const b of known) {
      const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
          const row = d[i] as number[];
          const above = d[i - 1] as number[];
          row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
        }
      }
      const distance = (d[a.length] as number[])[b.length] as number;
      if (distance < bestDistance) {
        best = b;
        bestDistance = distance;
      }
    }
    return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
  }

  it('property: suggests what the whole edit-distance table does, for any word up to 64 characters', () => {
    const letters = fc.string({ unit: fc.constantFrom('a', 'e', 'i', 'm', 'o', 'p', 's', 't', 'w', 'r', 'd', '_', '-'), maxLength: 20 });
    fc.assert(
      fc.property(fc.oneof(letters, fc.constantFrom('pasword', 'timout', 'tsl', 'schedule')), fc.array(fc.oneof(letters, fc.constantFrom('password', 'timeout', 'tls')), { minLength: 1, maxLength: 6 }), (word, known) => {
        expect(suggest(word, known)).toBe(fullTable(word, known));
      }),
      { numRuns: 500 },
    );
  });

  it('suggests nothing for a word longer than any key, at once (a key of a million letters took 3.7 s and 855 MB)', () => {
    const { ms } = cpuTimed(() => {
      expect(suggest('a'.repeat(1_000_000), ['password', 'timeout'])).toBeUndefined();
      expect(suggest(`passwor${'d'.repeat(60)}`, ['password'])).toBeUndefined();
    });
    expect(ms).toBeLessThan(100);
  });
});

describe('listenProblem', () => {
  it.each(['0.0.0.0:9731', ':9731', '[::]:9731', '[::1]:0', 'localhost:9731', 'exporter.example.:80'])('accepts %s', (text) => {
    expect(listenProblem(text)).toBeUndefined();
  });

  it.each<[string, string]>([
    ['9731', 'is not a listen address'],
    ['::9731', 'put an IPv6 address in brackets'],
    ['[::1]9731', 'is not a listen address'],
    ['[10.0.0.1]:9731', 'is not an IP address or host name'],
    ['under_score:80', 'is not an IP address or host name'],
    ['host:65536', 'port 65536 is above 65535'],
    ['host:', 'is not a listen address'],
    ['127.0.0.1:000009871', 'has more than 5 digits'],
    // It threw "Invalid URL" out of check-config and the daemon's start (found by review).
    ['[fe80::1%lo]:9731', 'has a zone (%…), which a listen address cannot'],
    ['[::1%25eth0]:9731', 'has a zone'],
  ])('rejects %s', (text, message) => {
    expect(listenProblem(text)).toContain(message);
  });

  it('is the server’s verdict: the config accepts a listen string iff the server can listen on it', () => {
    const piece = fc.constantFrom('', ':', '[', ']', '::', '0', '00000', '9731', '65535', '65536', '127.0.0.1', '::1', 'localhost', 'LocalHost', 'a-b', '_', ' ', '.', '%', 'fe80::1%eth0');
    // Bracketed addresses with a port too: pieces alone seldom make one (a zoned one never came up).
    const bracketed = fc.tuple(fc.array(piece, { maxLength: 3 }), fc.constantFrom('9731', '0', '65536')).map(([parts, port]) => `[${parts.join('')}]:${port}`);
    fc.assert(
      fc.property(fc.oneof(fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')), bracketed, fc.string({ maxLength: 20 })), (text) => {
        let serverError: unknown;
        try {
          parseListen(text);
        } catch (error) {
          serverError = error;
        }
        expect(listenProblem(text) === undefined).toBe(serverError === undefined);
      }),
      { numRuns: 3000 },
    );
  });

  it.each<[string, string]>([
    [':9731', '0.0.0.0:9731'],
    ['[0:0:0:0:0:0:0:1]:80', '[::1]:80'],
    ['LOCALHOST:80', 'localhost:80'],
    ['127.0.0.1:09731', '127.0.0.1:9731'],
  ])('reads %s as the same address as %s (what a reload compares)', (a, b) => {
    expect(parseListen(a)).toEqual(parseListen(b));
  });
});

describe('checkRouterUrl', () => {
  it.each<[string, string]>([
    ['https://192.0.2.1', 'https://192.0.2.1'],
    ['https://192.0.2.1/', 'https://192.0.2.1'],
    ['HTTPS://Router.Example:8443', 'https://router.example:8443'],
    ['http://192.0.2.1:80', 'http://192.0.2.1'],
    ['https://[2001:db8::1]', 'https://[2001:db8::1]'],
  ])('%s → %s', (text, url) => {
    expect(checkRouterUrl(text)).toEqual({ url });
  });

  it.each<[string, string]>([
    ['192.0.2.1', 'is not a URL'],
    ['ftp://192.0.2.1', 'must start with https://'],
    ['https://user@192.0.2.1', 'must not contain credentials'],
    ['https://192.0.2.1/rest', 'must not have a path'],
    ['https://192.0.2.1/?a=1', 'must not have a query'],
    ['https://192.0.2.1/#top', 'must not have a query or fragment'],
    ['https://192.0.2.1?', 'must not have a query'],
    ['https://127.0.0.1:0', 'has port 0'],
    ['http://[::1]:00', 'has port 0'],
  ])('rejects %s', (text, message) => {
    const result = checkRouterUrl(text);
    expect('problem' in result ? result.problem : '').toContain(message);
  });

  it('never quotes a URL that holds credentials, even a broken one', () => {
    const result = checkRouterUrl('https://u:pw-Secret@[broken');
    expect('problem' in result ? result.problem : '').toBe('the URL is not a URL (use https://host or https://host:port)');
  });

  it('tells plain HTTP apart', () => {
    expect(isPlainHttp('http://192.0.2.1')).toBe(true);
    expect(isPlainHttp('https://192.0.2.1')).toBe(false);
  });
});

describe('isHostName', () => {
  it.each([
    ['router', true],
    ['router.example', true],
    ['r-1.example.', true],
    ['-r.example', false],
    ['r_.example', false],
    ['a..b', false],
    ['', false],
    ['a'.repeat(64), false],
  ])('%s → %s', (name, ok) => {
    expect(isHostName(name)).toBe(ok);
  });
});
