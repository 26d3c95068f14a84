import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores in CI: end-to-end suites start servers and a real Prometheus, so keep parallelism modest.
    maxWorkers: 2,
    // Files share a worker process and the modules it imported: a fresh process and module graph per file cost
    // the suite about 40 % of its CPU. What is process-wide by design is reset before each file (file-setup.ts);
    // a file that mocks a module resets the module registry itself (vi.resetModules in vi.hoisted).
    isolate: false,
    setupFiles: ['test/helpers/file-setup.ts'],
    reporters: ['default'],
  },
});
