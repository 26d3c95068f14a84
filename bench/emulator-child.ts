/**
 * The emulator in its own process, so the exporter's CPU and memory figures are the exporter's alone.
 * Started by bench/run.ts over IPC: announces its routers once every router's state is built, and
 * answers `stats` with what the exporter fetched (requests and reply bytes by request path) and the TLS
 * connections it opened.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startEmulator } from '../src/emulator/index.js';
import type { ChildReply, ChildRequest, FetchStats } from './ipc.js';

const [routers = '10', interfaces = '4', peers = '100'] = process.argv.slice(2);

const fetched = new Map<string, { requests: number; bytes: number }>();

// Counted where the reply leaves the server: the REST handler sets Content-Length on every reply.
subscribe('http.server.response.finish', (message) => {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  const path = `${request.method ?? '?'} ${(request.url ?? '').split('?')[0] ?? ''}`;
  const entry = fetched.get(path) ?? { requests: 0, bytes: 0 };
  entry.requests += 1;
  entry.bytes += Number(response.getHeader('content-length') ?? 0);
  fetched.set(path, entry);
});

const emulator = await startEmulator({
  scenario: 'scale',
  scale: { routers: Number(routers), interfaces: Number(interfaces), peers: Number(peers) },
});
await emulator.ready;

const send = (reply: ChildReply): void => {
  process.send?.(reply);
};

process.on('message', (message: ChildRequest) => {
  if (message.type === 'stats') {
    const stats: FetchStats = Object.fromEntries(fetched);
    const connections = emulator.routers.reduce((sum, router) => sum + router.stats.connections, 0);
    send({ type: 'stats', stats, connections });
  } else if (message.type === 'stop') {
    void emulator.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => {
  void emulator.close().then(() => process.exit(0));
});

send({ type: 'ready', routers: emulator.routers.map((r) => ({ name: r.name, url: r.url })), ca: emulator.ca });
