/**
 * A FIFO or a device named as the config or as a file inside it is refused at once: reading a FIFO waits
 * for a writer (forever, holding loading, reload and shutdown) and /dev/zero never ends.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfigFile } from '../../src/config/index.js';
import { firstNonUtf8, readRegularFile, readRegularFileSync, shownPath } from '../../src/config/files.js';
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { loadWebConfig } from '../../src/server/web-config.js';
import { TEST_CA_PEM } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'routeros-special-'));
const fifo = join(dir, 'pipe');
execFileSync('mkfifo', [fifo]);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PEM = TEST_CA_PEM;
const FIFO_REASON = 'it is a FIFO (named pipe), not a regular file';

function config(lines: string[]): string {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, ['defaults:', '  username: monitor', ...lines, 'routers:', '  - name: hq', '    url: https://192.0.2.1', ''].join('\n'));
  return file;
}

describe('files that are not regular files', () => {
  it('readRegularFile and readRegularFileSync refuse a FIFO without waiting for a writer, and a device', async () => {
    await expect(readRegularFile(fifo)).rejects.toMatchObject({ code: 'ENOTREG', reason: FIFO_REASON });
    expect(() => readRegularFileSync(fifo)).toThrow(FIFO_REASON);
    expect(() => readRegularFileSync('/dev/zero')).toThrow('it is a character device, not a regular file');
    expect(() => readRegularFileSync(dir)).toThrow('it is a directory (EISDIR)');
  });

  it('refuses a FIFO as the config file itself', async () => {
    expect(await checkConfigFile(fifo, {})).toEqual([{ path: '', message: `cannot read the config file: ${FIFO_REASON}` }]);
  });

  it('refuses a FIFO or a device as password_file, tls.ca_file and web_config_file, each at its path', async () => {
    const file = config(['  password_file: pipe', '  tls: { ca_file: /dev/zero }', 'web_config_file: pipe']);
    expect(await checkConfigFile(file, {})).toEqual([
      { path: 'defaults.password_file', message: `cannot read the file it names: ${FIFO_REASON}` },
      { path: 'defaults.tls.ca_file', message: 'cannot read "/dev/zero": it is a character device, not a regular file' },
      { path: 'web_config_file', message: `cannot read ${JSON.stringify(fifo)}: ${FIFO_REASON}` },
    ]);
  });

  it('still reads regular files', async () => {
    writeFileSync(join(dir, 'ca.pem'), PEM);
    writeFileSync(join(dir, 'pw'), 'secret\n');
    expect(await checkConfigFile(config(['  password_file: pw', '  tls: { ca_file: ca.pem }']), {})).toEqual([]);
  });

  it('refuses a FIFO named inside the web config', () => {
    const web = join(dir, 'web.yml');
    writeFileSync(web, 'tls_server_config:\n  cert_file: pipe\n  key_file: pipe\n');
    expect(() => loadWebConfig(web)).toThrow(
      expect.objectContaining({
        problems: expect.arrayContaining([{ path: 'tls_server_config.cert_file', message: `cannot read ${JSON.stringify(fifo)}: ${FIFO_REASON}` }]) as unknown,
      }),
    );
  });
});

describe('text pasted where a path goes', () => {
  // A private key's shape; its body is what must never be shown.
  const KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7kEyHostileKeyBody';
  const KEY = `-----BEGIN PRIVATE KEY-----\n${KEY_BODY}\n-----END PRIVATE KEY-----\n`;
  const NOT_SHOWN = 'cannot read the file it names (not shown: text with line breaks, a PEM marker or over 1,024 characters is no path; give the path of the file that holds it): no such file (ENOENT)';

  it('a private key pasted as key_file is not quoted by the web config, nor a certificate as tls.ca_file by the config (the key was printed whole)', async () => {
    const web = join(dir, 'pasted-web.yml');
    writeFileSync(web, `tls_server_config:\n  cert_file: ${JSON.stringify(KEY)}\n  key_file: |\n${KEY.split('\n').map((line) => `    ${line}`).join('\n')}\n`);
    let problems: unknown;
    try {
      loadWebConfig(web);
    } catch (error) {
      problems = (error as { problems: unknown }).problems;
    }
    expect(problems).toEqual([
      { path: 'tls_server_config.cert_file', message: NOT_SHOWN },
      // A key_file's path is never quoted, whatever it holds.
      { path: 'tls_server_config.key_file', message: 'cannot read the file it names: no such file (ENOENT)' },
    ]);
    // A key body on one line, without its markers, as a key_file: not quoted either.
    writeFileSync(web, `tls_server_config:\n  cert_file: cert.pem\n  key_file: ${KEY_BODY}\n`);
    let oneLine: unknown;
    try {
      loadWebConfig(web);
    } catch (error) {
      oneLine = (error as { problems: unknown }).problems;
    }
    expect(JSON.stringify(oneLine)).not.toContain(KEY_BODY);
    const file = config(['  password: pw', `  tls: { ca_file: ${JSON.stringify(KEY)} }`]);
    expect(await checkConfigFile(file, {})).toEqual([{ path: 'defaults.tls.ca_file', message: NOT_SHOWN }]);
  });

  it('a path is quoted only when it can be one: whatever the text, a line break or a PEM marker is never shown (generator)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.constantFrom('\n', '\r', '\t', '\u0000', '-----'), fc.string({ maxLength: 40 }), (before, mark, after) => {
        const given = `${before}${mark}${after}`;
        const shown = shownPath(given, join(dir, given));
        expect(shown).not.toContain(mark === '-----' ? '-----' : JSON.stringify(mark).slice(1, -1));
        expect(shown.startsWith('the file it names')).toBe(true);
      }),
    );
    expect(shownPath('ca.pem', join(dir, 'ca.pem'))).toBe(JSON.stringify(join(dir, 'ca.pem')));
    expect(shownPath('x'.repeat(2000), `/${'x'.repeat(2000)}`).startsWith('the file it names')).toBe(true);
  });
});

describe('files that are not UTF-8 text', () => {
  const NOT_UTF8 = 'it is not UTF-8 text (save it as UTF-8; a PEM certificate is ASCII)';

  it('a password_file saved as Latin-1 is refused at its path, never decoded into another password (found by review)', async () => {
    writeFileSync(join(dir, 'latin1-pw'), Buffer.from('p\xe4ssword\n', 'latin1'));
    writeFileSync(join(dir, 'latin1.pem'), Buffer.concat([Buffer.from(PEM), Buffer.from([0xff])]));
    expect(await checkConfigFile(config(['  password_file: latin1-pw', '  tls: { ca_file: latin1.pem }']), {})).toEqual([
      { path: 'defaults.password_file', message: `cannot read the file it names: ${NOT_UTF8}` },
      { path: 'defaults.tls.ca_file', message: `cannot read ${JSON.stringify(join(dir, 'latin1.pem'))}: ${NOT_UTF8}` },
    ]);
  });

  it('the config file itself, too, with the line and column of the first byte that is not (found by review)', async () => {
    const file = join(dir, 'latin1.yml');
    writeFileSync(file, Buffer.from('# Z\xfcrich office\nrouters:\n  - name: caf\xe9\n', 'latin1'));
    expect(await checkConfigFile(file, {})).toEqual([
      { path: '', message: 'line 1, column 4: the config file is not UTF-8 text from here on (save it as UTF-8)', line: 1, column: 4 },
    ]);
    writeFileSync(file, Buffer.from('routers:\n  - name: caf\xe9\n', 'latin1'));
    expect(await checkConfigFile(file, {})).toMatchObject([{ line: 2, column: 14 }]);
  });

  it('property: the first byte that is not UTF-8 is where a strict decoder stops, and none is found in UTF-8', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => new Uint8Array(Buffer.from(text))),
      fc.tuple(fc.string({ unit: 'grapheme', maxLength: 10 }), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([text, tail]) => new Uint8Array([...Buffer.from(text), ...tail])),
    );
    fc.assert(
      fc.property(bytes, (input) => {
        const at = firstNonUtf8(input);
        expect(at === -1).toBe(isUtf8(input));
        if (at >= 0) {
          expect(isUtf8(input.subarray(0, at))).toBe(true);
          // No longer prefix is UTF-8 up to a character's end: the byte at `at` starts no complete character.
          for (let end = at + 1; end <= Math.min(input.length, at + 4); end++) expect(isUtf8(input.subarray(0, end))).toBe(false);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('UTF-8 text reads as itself, a byte-order mark and all', async () => {
    writeFileSync(join(dir, 'utf8-pw'), 'pässwörd ✓\n');
    expect(readRegularFileSync(join(dir, 'utf8-pw'))).toBe('pässwörd ✓\n');
    await expect(readRegularFile(join(dir, 'utf8-pw'))).resolves.toBe('pässwörd ✓\n');
    writeFileSync(join(dir, 'bom.yml'), '\ufeffrouters: []\n');
    expect(readRegularFileSync(join(dir, 'bom.yml'))).toBe('\ufeffrouters: []\n');
  });
});
