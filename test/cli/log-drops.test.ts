/**
 * Lines the daemon's log destination drops (its reader stalled past the bound held for it, or one line larger than
 * that bound on its own) are said in one warning with their count, never left out without a word.
 */
import { execFileSync } from 'node:child_process';
import { constants, mkdtempSync, openSync, readFileSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { noteDroppedLines, pinoOn } from '../../src/cli/logger.js';

interface Line {
  level: string;
  msg: string;
  dropped?: number;
  n?: number;
}

const linesOf = (text: string): Line[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('log lines the destination drops', () => {
  it('a line larger than the bound on its own is said in a warning, between the lines around it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'log-drops-')), 'log');
    const stream = pino.destination({ dest: path, maxLength: 1024, sync: false });
    await new Promise((resolve) => stream.once('ready', resolve));
    const logger = pinoOn('info', stream);
    noteDroppedLines(stream, logger);
    logger.info({ n: 1 }, 'before');
    // Within the log hooks' bound on a message, over the destination's.
    logger.info({ n: 2 }, 'x'.repeat(1_500));
    await turn();
    logger.info({ n: 3 }, 'after');
    // Written in the background: read once the last line is in the file.
    await expect.poll(() => readFileSync(path, 'utf8'), { timeout: 10_000 }).toContain('"n":3');
    stream.destroy();
    const lines = linesOf(readFileSync(path, 'utf8'));
    expect(lines.map((line) => line.n ?? `note of ${line.dropped}`)).toEqual([1, 'note of 1', 3]);
    const note = lines[1] as Line;
    expect(note.level).toBe('warn');
    expect(note.msg).toMatch(/^1 log line\(s\) left out/);
  });

  it("a stalled reader: one note once it takes lines again, counting every line it never got", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-drops-'));
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // Read and write ends in one descriptor (Linux): nothing reads until the test does, so the pipe fills.
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const stream = pino.destination({ fd, maxLength: 100_000, sync: false, retryEAGAIN: () => true });
    const logger = pinoOn('info', stream);
    noteDroppedLines(stream, logger);
    const written = 4_000;
    // ~1 MB of lines: the pipe's 64 KiB and the 100,000 bytes held take a part; the rest is dropped.
    for (let n = 0; n < written; n++) {
      logger.info({ n }, `line ${n} ${'y'.repeat(200)}`);
      if (n % 100 === 0) await turn();
    }
    let text = '';
    const chunk = Buffer.alloc(65_536);
    const lines = (): Line[] => linesOf(text.slice(0, text.lastIndexOf('\n') + 1));
    const accounted = (): number => lines().reduce((sum, line) => sum + (line.dropped ?? (line.n === undefined ? 0 : 1)), 0);
    const deadline = Date.now() + 20_000;
    try {
      // The reader comes back and reads until every line written has come or been counted in a note (the destination
      // retries a refused write every 100 ms).
      while (accounted() < written && Date.now() < deadline) {
        try {
          const read = readSync(fd, chunk);
          text += chunk.toString('utf8', 0, read);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    } finally {
      // The destination closes the descriptor it was given.
      stream.destroy();
    }
    const notes = lines().filter((line) => line.dropped !== undefined);
    const received = lines().filter((line) => line.n !== undefined);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(written);
    expect(accounted()).toBe(written);
    // One note as the lines are dropped (if it fits) and one once the reader took what was held, not one per line:
    // ~3,500 lines are dropped.
    expect(notes.length).toBeGreaterThanOrEqual(1);
    expect(notes.length).toBeLessThanOrEqual(2);
    for (const note of notes) expect(note.level).toBe('warn');
  }, 30_000);
});
