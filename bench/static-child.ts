/**
 * The physical limit: a plain node:http server answering with a buffer made once, the same bytes the
 * exporter served (and their gzip form), in its own process like the exporter.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildReply } from './ipc.js';

const [plainFile = '', gzipFile = ''] = process.argv.slice(2);
const plain = readFileSync(plainFile);
const gzip = readFileSync(gzipFile);
const TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const server = createServer((req, res) => {
  const zipped = req.url === '/gzip';
  const body = zipped ? gzip : plain;
  res.writeHead(200, {
    'content-type': TYPE,
    'content-length': body.length,
    ...(zipped ? { 'content-encoding': 'gzip' } : {}),
  });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const reply: ChildReply = { type: 'listening', url: `http://127.0.0.1:${port}` };
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
