/**
 * BENCH_EXPORTER_ENV: variables for the exporter's process alone, so an allocator setting measured for the image
 * is not also taken by the bench's own client and the emulator (their costs are not the exporter's).
 */
import { describe, expect, it } from 'vitest';
import { exporterEnv } from '../../bench/exporter.js';

describe('exporterEnv', () => {
  it('reads NAME=value pairs separated by spaces, a value keeping any = in it', () => {
    expect(exporterEnv('MALLOC_MMAP_THRESHOLD_=65536  MALLOC_ARENA_MAX=2 X=a=b')).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_ARENA_MAX: '2', X: 'a=b' });
    expect(exporterEnv('')).toEqual({});
  });

  it('refuses a pair without a name, so a typo is not silently a variable of another name', () => {
    expect(() => exporterEnv('=65536')).toThrow('"=65536" is not NAME=value');
    expect(() => exporterEnv('MALLOC_MMAP_THRESHOLD_')).toThrow('is not NAME=value');
  });
});
