import { closeSync, openSync, readdirSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { openFileDescriptors, registerOpenFds, type FdDirectory } from '../../src/metrics/open-fds.js';

/** A directory whose listing is counted, to see whether the count came from it. */
function fakeDirectory(size: number, entries: number): FdDirectory & { listed: number } {
  const dir = {
    listed: 0,
    size: () => size,
    entries: (): number => {
      dir.listed++;
      return entries;
    },
  };
  return dir;
}

async function servedValue(registry: Registry): Promise<string | undefined> {
  return (await registry.metrics()).match(/^process_open_fds (\S+)$/m)?.[1];
}

describe('process_open_fds', () => {
  it.runIf(process.platform === 'linux')('counts what a listing of /proc/self/fd counts, here and with 200 descriptors more', () => {
    const listed = (): number => readdirSync('/proc/self/fd').length - 1;
    const before = openFileDescriptors();
    expect(before).toBe(listed());
    const extra = Array.from({ length: 200 }, () => openSync('/dev/null', 'r'));
    try {
      expect(openFileDescriptors()).toBe((before ?? 0) + 200);
      expect(openFileDescriptors()).toBe(listed());
    } finally {
      for (const fd of extra) closeSync(fd);
    }
    expect(openFileDescriptors()).toBe(before);
  });

  it('takes the count from the directory size, without listing, where the kernel reports it', async () => {
    const dir = fakeDirectory(4_321, 9_999);
    const registry = new Registry();
    registerOpenFds(registry, dir);
    expect(await servedValue(registry)).toBe('4321');
    expect(dir.listed).toBe(0);
  });

  it("lists the directory where the kernel reports no size (before Linux 6.2), not counting the listing's own descriptor", () => {
    const dir = fakeDirectory(0, 17);
    expect(openFileDescriptors(dir)).toBe(16);
    expect(dir.listed).toBe(1);
  });

  it('is not served at all, rather than as 0, where /proc cannot be read (not Linux)', async () => {
    const failing: FdDirectory = {
      size: () => {
        throw new Error('ENOENT');
      },
      entries: () => 3,
    };
    expect(openFileDescriptors(failing)).toBeUndefined();
    const registry = new Registry();
    registerOpenFds(registry, failing);
    expect(await registry.metrics()).not.toMatch(/process_open_fds/);
  });

  it('keeps the last count when a later read fails', async () => {
    let readable = true;
    const flaky: FdDirectory = {
      size: () => {
        if (!readable) throw new Error('EMFILE');
        return 12;
      },
      entries: () => 0,
    };
    const registry = new Registry();
    registerOpenFds(registry, flaky);
    expect(await servedValue(registry)).toBe('12');
    readable = false;
    expect(await servedValue(registry)).toBe('12');
  });
});
