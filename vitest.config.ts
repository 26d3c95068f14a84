import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores in CI: end-to-end suites start servers and a real Prometheus, so keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
