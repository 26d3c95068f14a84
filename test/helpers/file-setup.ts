/**
 * Runs before each test file (vitest.config.ts: setupFiles). Test files share a worker process and its modules,
 * which saves re-importing the exporter for every file; what is process-wide by design is reset here, so every
 * file starts as a fresh process would.
 */
import { dropScratchBuffers } from '../../src/metrics/lines.js';
import { forgetAllSecrets } from '../../src/util/redact.js';

forgetAllSecrets();
dropScratchBuffers();
