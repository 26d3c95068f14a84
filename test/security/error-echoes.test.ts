/**
 * A RouterOS failure status (400, 403, 404, 406, 500, 501) shows the reply's message and detail: they say what is
 * wrong. A proxy or portal answering in the router's place with one of those statuses may echo the credentials in
 * a form no redaction knows (found by a hostile tester: HTML entities, percent-encoded twice, reversed, base64 of a
 * JSON body at another byte offset, a Basic token broken over lines, each printing 14 of 15 characters). Such text
 * is withheld whole; RouterOS's own details stay.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { mapStatusError } from '../../src/routeros/transport-errors.js';
import { WITHHELD } from '../../src/routeros/shown-text.js';
import { encodedReplyError, notDataError } from '../../src/routeros/body.js';
import { asRecordList } from '../../src/routeros/records.js';
import { basicEncoding, forgetAllSecrets, registerCredentials, SHARED_RUN, sharesSecretRun } from '../../src/util/redact.js';

const REQUEST = 'GET /rest/interface/wireguard/peers';
const ROUTEROS_STATUSES = [400, 403, 404, 406, 500, 501] as const;

/** The message of a failure whose reply said `message` and `detail`. */
function said(status: number, message: string, detail?: string): string {
  return mapStatusError(status, detail === undefined ? { error: status, message } : { error: status, message, detail }, REQUEST).message;
}

/** The secret's spellings an echo keeps runs of: as is, reversed, and its base64 at each byte alignment. */
function spellings(password: string): string[] {
  const bytes = Buffer.from(password, 'utf8');
  const out = [password, [...password].reverse().join('')];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    out.push(encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)));
  }
  return out.map((spelling) => spelling.toLowerCase());
}

/** Every run of `length` characters of the spellings that the text holds, letters in any case. */
function runsIn(text: string, password: string, length: number): Set<string> {
  const lower = text.toLowerCase();
  const found = new Set<string>();
  for (const spelling of spellings(password)) {
    for (let at = 0; at + length <= spelling.length; at++) {
      const run = spelling.slice(at, at + length);
      if (lower.includes(run)) found.add(run);
    }
  }
  return found;
}

beforeEach(() => {
  forgetAllSecrets();
});

describe('the echoes a hostile tester found', () => {
  const PASSWORD = 'S3cretPassw0rd!';

  it.each([
    ['HTML entities', 'upstream said: S3cretPassw0rd&#33; rejected'],
    ['percent-encoded twice', 'upstream said: S3cretPassw0rd%2521 rejected'],
    ['reversed', 'user=admin pass=!dr0wssaPterc3S'],
    ['reversed, without its one sign', 'user=admin pass dr0wssaPterc3S'],
    ['base64 of a JSON body, the password at another byte offset', 'cred eyJ1IjoiYWRtaW4iLCJwdyI6IlMzY3JldFBhc3N3MHJkISJ9'],
    ['a Basic token broken over lines', 'header was Basic YWRtaW46UzNjcmV0\nUGFzc3cwcmQh (blocked)'],
    ['the second half of that token alone', 'UGFzc3cwcmQh'],
    ['spaced out', 'pw S3c ret Pas sw0 rd'],
  ])('%s: withheld in every RouterOS status, as message and as detail', (_name, echo) => {
    registerCredentials('admin', PASSWORD);
    for (const status of ROUTEROS_STATUSES) {
      for (const message of [said(status, 'Internal Server Error', echo), said(status, echo)]) {
        expect(message).toContain(WITHHELD);
        expect([...runsIn(message, PASSWORD, SHARED_RUN)]).toEqual([]);
      }
    }
  });

  it("keeps RouterOS's own details, which say what is wrong", () => {
    registerCredentials('admin', PASSWORD);
    const details = [
      'no such command or directory (wireguard)',
      'no such command prefix',
      'unknown parameter timeout',
      'std failure: timeout (13)',
      'std failure: not allowed (9)',
      'not enough permissions (9)',
      'failure: already have interface with such name',
      'expected end of command (line 1 column 12)',
      'Session closed',
    ];
    for (const detail of details) expect(said(500, 'Internal Server Error', detail)).toContain(`HTTP 500: Internal Server Error (${detail})`);
    expect(said(400, 'Bad Request', 'no such command or directory (wireguard)')).toContain('(no such command or directory (wireguard))');
  });

  it('a password too short to be registered withholds nothing: hiding every text that holds it would tell it', () => {
    registerCredentials('admin', 'ch');
    registerCredentials('admin', 'com');
    expect(said(400, 'Bad Request', 'no such command or directory (wireguard)')).toContain('(no such command or directory (wireguard))');
  });

  it('a text longer than any of RouterOS\'s own, or written with other characters, is withheld without any password known', () => {
    expect(said(500, 'Internal Server Error', 'x'.repeat(201))).toContain(`(${WITHHELD})`);
    for (const text of ['<html>denied</html>', 'a%20b', 'a&amp;b', 'line\nbreak', 'a\\u0021', 'ab+cd==']) {
      expect(said(500, 'Internal Server Error', text)).toContain(`(${WITHHELD})`);
    }
  });
});

describe('property: no run of a password comes through a RouterOS status in any echo of the family', () => {
  const passwordChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#%&*+-./:;=?@_~ '.split(''));
  const password = fc.array(passwordChar, { minLength: 4, maxLength: 24 }).map((chars) => chars.join(''));
  const user = fc.constantFrom('admin', 'monitor', 'prometheus', 'x');
  /** Plain words around an echo, of the kinds proxies and RouterOS write. */
  const words = fc.constantFrom('', 'upstream said: ', 'pass=', 'cred ', 'blocked ', 'no such command or directory (', 'std failure: ');

  const htmlEntities = (text: string, every: boolean[]): string =>
    [...text].map((char, index) => (every[index % every.length] === true ? `&#${char.codePointAt(0) ?? 0};` : char)).join('');
  const percent = (text: string, every: boolean[]): string =>
    [...text].map((char, index) => (every[index % every.length] === true ? encodeURIComponent(char).replace(/^[^%]/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : char)).join('');
  const broken = (text: string, at: number, by: string): string => {
    const cut = at % (text.length + 1);
    return `${text.slice(0, cut)}${by}${text.slice(cut)}`;
  };

  /** One echo of the family: of `pw` (password) and `u` (user name), built from the choices drawn. */
  const echo = fc.oneof(
    // A stretch of the password at least SHARED_RUN long (all of a 4-character one), as is or its case changed.
    fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('as is', 'upper', 'lower')).map(([start, extra, casing]) => (pw: string) => {
      const length = Math.min(pw.length, SHARED_RUN + (extra % pw.length));
      const from = start % (pw.length - length + 1);
      const stretch = pw.slice(from, from + length);
      return casing === 'upper' ? stretch.toUpperCase() : casing === 'lower' ? stretch.toLowerCase() : stretch;
    }),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }).map((every) => (pw: string) => htmlEntities(pw, every)),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }).map((every) => (pw: string) => percent(pw, every)),
    fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }).map((every) => (pw: string) => percent(percent(pw, every), every)),
    fc.constant((pw: string) => [...pw].reverse().join('')),
    // The password inside a longer text, in base64 at every byte offset (a JSON body, a form).
    fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.boolean()).map(([before, after, url]) => (pw: string) => {
      const encoded = Buffer.from(`${before}${pw}${after}`, 'utf8').toString(url ? 'base64url' : 'base64');
      return encoded;
    }),
    fc.constant((pw: string, u: string) => Buffer.from(JSON.stringify({ u, pw }), 'utf8').toString('base64')),
    // A Basic token, or the password, broken by a line break, spaces or another separator.
    fc.tuple(fc.nat(), fc.constantFrom('\n', '\r\n', ' ', '  ', '-', '.')).map(([at, by]) => (pw: string, u: string) => `Basic ${broken(basicEncoding(u, pw), at, by)}`),
    fc.tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.constantFrom('\n', ' ', '-', '_')).map(([cuts, by]) => (pw: string) => cuts.reduce((text, at) => broken(text, at, by), pw)),
  );

  it('withholds any message or detail that holds one, and shows no run of it (SHARED_RUN characters in a row)', () => {
    fc.assert(
      fc.property(password, user, echo, words, fc.constantFrom(...ROUTEROS_STATUSES), fc.boolean(), (pw, u, transform, before, status, asDetail) => {
        forgetAllSecrets();
        registerCredentials(u, pw);
        const text = `${before}${transform(pw, u)}`;
        const run = Math.min(SHARED_RUN, pw.length);
        // Runs our own words may hold (`the router failed…` for a password `router`, `withheld` for `dlehh`) are not
        // the echo's: those of the message for a reply shown, and for one withheld as message or as detail.
        const ours = new Set([said(status, 'Internal Server Error', 'x'), said(status, '\n'), said(status, 'Internal Server Error', '\n')].flatMap((own) => [...runsIn(own, pw, run)]));
        const message = asDetail ? said(status, 'Internal Server Error', text) : said(status, text);
        const leaked = [...runsIn(message, pw, run)].filter((found) => !ours.has(found));
        expect(leaked, message).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  /** The message of each error that names text from a reply's head or its JSON, with `text` there. */
  const errorsNaming = (text: string): string[] => {
    const named: string[] = [];
    for (const make of [
      () => notDataError(REQUEST, 200, text, false),
      () => notDataError(REQUEST, 200, `text/html, ${text}`, false),
      () => encodedReplyError(REQUEST, 200, text),
      () => asRecordList([{ [text]: { nested: true } }], REQUEST),
      () => asRecordList([{ [text.repeat(1100)]: 'x' }], REQUEST),
    ]) {
      try {
        make();
        named.push('');
      } catch (error) {
        named.push(error instanceof Error ? error.message : String(error));
      }
    }
    return named;
  };

  it('nor through a Content-Type, a Content-Encoding or a JSON field name (found in review: plain redaction only there)', () => {
    fc.assert(
      fc.property(password, user, echo, words, (pw, u, transform, before) => {
        forgetAllSecrets();
        registerCredentials(u, pw);
        const run = Math.min(SHARED_RUN, pw.length);
        const ours = new Set(errorsNaming('x').flatMap((own) => [...runsIn(own, pw, run)]));
        for (const message of errorsNaming(`${before}${transform(pw, u)}`)) {
          const leaked = [...runsIn(message, pw, run)].filter((found) => !ours.has(found));
          expect(leaked, message).toEqual([]);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('what a reply head or field name says, when it cannot echo anything', () => {
  it('is shown: media types, codings and RouterOS field names', () => {
    registerCredentials('admin', 'S3cretPassw0rd!');
    expect(notDataError(REQUEST, 200, 'text/html; charset=utf-8', false).message).toContain('answered HTML (text/html; charset=utf-8)');
    expect(notDataError(REQUEST, 200, 'text/plain', false).message).toContain('with Content-Type text/plain, not JSON');
    expect(encodedReplyError(REQUEST, 200, 'br, gzip').message).toContain('with Content-Encoding br, gzip,');
    expect(() => asRecordList([{ 'public-key': { nested: true } }], REQUEST)).toThrow('field "public-key" is');
    expect(notDataError(REQUEST, 200, 'text/html; x="S3cretPassw0rd!"', false).message).toContain(`answered HTML ([${WITHHELD}])`);
  });
});

describe("RouterOS's own texts beside a fleet's passwords (found by review)", () => {
  it('share no run with 10,000 random passwords in any spelling: none of them is withheld', () => {
    forgetAllSecrets();
    // A fixed generator: the same 10,000 passwords every run.
    let state = 0x2f6b1d3;
    const next = (): number => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state;
    };
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#%&*+-./:;=?@_~';
    for (let index = 0; index < 10_000; index++) {
      const length = 12 + (next() % 9);
      registerCredentials('monitor', Array.from({ length }, () => alphabet[next() % alphabet.length]).join(''));
    }
    const texts = [
      'Not Found',
      'Bad Request',
      'Internal Server Error',
      'Forbidden',
      'Not Acceptable',
      'no such command or directory (wireguard)',
      'no such command or directory (routerboard)',
      'no such command prefix',
      'unknown parameter foo',
      'std failure: timeout (13)',
      'failure: already have such address',
      'not enough permissions (9)',
      'expected end of command (line 1 column 5)',
      'input does not match any value of interface',
    ];
    expect(texts.filter((text) => sharesSecretRun(text))).toEqual([]);
    forgetAllSecrets();
  });
});
