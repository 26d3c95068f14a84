/** A real Prometheus (Debian's package) on loopback, with its own config and storage in a temp folder. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unusedPort } from './ports.js';

export interface RunningPrometheus {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

export async function startPrometheus(config: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, config);
  const port = await unusedPort();
  let output = '';
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface QueryResult {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result: unknown[] };
}

export async function instantQuery(base: string, expr: string): Promise<QueryResult> {
  const response = await fetch(`${base}/api/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query: expr }),
  });
  return (await response.json()) as QueryResult;
}
