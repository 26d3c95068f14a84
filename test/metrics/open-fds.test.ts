import { closeSync, openSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { fdCounter, registerOpenFds, type FdDirectory } from '../../src/metrics/open-fds.js';

/** A /proc/self/fd stand-in: `open` descriptors, a size as a kernel reports it, and a count of listings. */
function fakeDirectory(open: number, size: (open: number) => number): FdDirectory & { open: number; listed: number } {
  const dir = {
    open,
    listed: 0,
    size: () => size(dir.open),
    entries: (): number => {
      dir.listed++;
      return dir.open + 1;
    },
  };
  return dir;
}

async function servedValue(registry: Registry): Promise<string | undefined> {
  return (await registry.metrics()).match(/^process_open_fds (\S+)$/m)?.[1];
}

describe('process_open_fds', () => {
  it.runIf(process.platform === 'linux')('counts what a listing of /proc/self/fd counts, here and with 200 descriptors more', () => {
    const listing = (): number => readdirSync('/proc/self/fd').length - 1;
    const count = fdCounter();
    expect(count).toBeDefined();
    const before = count?.();
    expect(before).toBe(listing());
    const extra = Array.from({ length: 200 }, () => openSync('/dev/null', 'r'));
    try {
      expect(count?.()).toBe((before ?? 0) + 200);
      expect(count?.()).toBe(listing());
    } finally {
      for (const fd of extra) closeSync(fd);
    }
    expect(count?.()).toBe(before);
  });

  it('takes the count from the directory size, without listing, where the kernel reports it', async () => {
    const dir = fakeDirectory(4_321, (open) => open);
    const registry = new Registry();
    registerOpenFds(registry, fdCounter(dir));
    const listedAtStart = dir.listed;
    dir.open = 5_000;
    expect(await servedValue(registry)).toBe('5000');
    expect(dir.listed).toBe(listedAtStart);
  });

  it('lists the directory wherever its size is not the count (0 before Linux 6.2, or anything else), not counting the listing itself', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 3, max: 100_000 }), fc.func(fc.integer({ min: -1, max: 200_000 })), async (open, reported) => {
        // A size that is the count now and then is still a size that is not the count.
        const size = (n: number): number => (reported(n) === n ? n + 1 : reported(n));
        const dir = fakeDirectory(open, size);
        const registry = new Registry();
        registerOpenFds(registry, fdCounter(dir));
        dir.open = open + 7;
        expect(await servedValue(registry)).toBe(String(open + 7));
      }),
    );
  });

  it('is not served at all, rather than as 0, where /proc cannot be read (not Linux)', async () => {
    const failing: FdDirectory = {
      size: () => {
        throw new Error('ENOENT');
      },
      entries: () => 3,
    };
    expect(fdCounter(failing)).toBeUndefined();
    const registry = new Registry();
    registerOpenFds(registry, fdCounter(failing));
    expect(await registry.metrics()).not.toMatch(/process_open_fds/);
  });

  it('keeps the last count when a later read fails', async () => {
    const dir = fakeDirectory(12, (open) => open);
    const registry = new Registry();
    registerOpenFds(registry, fdCounter(dir));
    expect(await servedValue(registry)).toBe('12');
    dir.size = () => {
      throw new Error('EMFILE');
    };
    expect(await servedValue(registry)).toBe('12');
  });
});
