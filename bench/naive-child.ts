/**
 * The naive prom-client baseline, in its own process: one Gauge per metric family with its label names,
 * `.set()` for every label set once per collection cycle, `await registry.metrics()` on every scrape.
 * It is fed the series the exporter served (same names, labels and values), so only the design differs.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { parseExposition } from './exposition-parse.js';
import type { ChildReply } from './ipc.js';

const [file = '', intervalText = '30'] = process.argv.slice(2);
const registry = new Registry();
collectDefaultMetrics({ register: registry });

const families = parseExposition(readFileSync(file, 'utf8'), (name) => name.startsWith('routeros_') && !name.startsWith('routeros_exporter_'));
const gauges = families.map((family) => ({
  family,
  gauge: new Gauge({ name: family.name, help: family.help, labelNames: family.labelNames, registers: [registry] }),
}));

/** One collection cycle's worth of updates: every label set set again, as a naive collector does. */
function setAll(): number {
  const started = performance.now();
  for (const { family, gauge } of gauges) for (const series of family.series) gauge.set(series.labels, series.value);
  return performance.now() - started;
}

const cycleMs = [setAll()];
const timer = setInterval(() => cycleMs.push(setAll()), Number(intervalText) * 1000);
timer.unref();

const server = createServer((req, res) => {
  void registry.metrics().then(
    (text) => {
      res.writeHead(200, { 'content-type': registry.contentType });
      res.end(text);
    },
    (error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const reply: ChildReply = { type: 'listening', url: `http://127.0.0.1:${port}`, cycleMs: cycleMs[0] ?? 0 };
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
