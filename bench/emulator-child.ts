/**
 * The emulator in its own process, so the exporter's CPU and memory figures are the exporter's alone.
 * Started by bench/run.ts over IPC: announces its routers once every router's state is built, and
 * answers `stats` with what the exporter fetched (requests and reply bytes by request path) and the TLS
 * connections it opened.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startEmulator } from '../src/emulator/index.js';
import { KEEP_WARM_PATH, type ChildReply, type ChildRequest, type FetchStats } from './ipc.js';

const [routers = '10', interfaces = '4', peers = '100', keepAlive = '', resumption = '', schedule = '30', hung = '0'] =
  process.argv.slice(2);
const tickMs = Number(schedule) * 1000;

const fetched = new Map<string, { requests: number; bytes: number }>();
/** The exporter's schedules are `*\/N` seconds, so ticks fall on multiples of N seconds of the wall clock. */
const lastReplyAfterTick = new Map<number, number>();
/** By tick: peer lists answered in that interval, one per router collected (the wireguard collector's read). */
const peerListsByTick = new Map<number, number>();
const PEER_LIST_PATH = 'GET /rest/interface/wireguard/peers';

// Counted where the reply leaves the server: the REST handler sets Content-Length on every reply.
subscribe('http.server.response.finish', (message) => {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  const path = `${request.method ?? '?'} ${(request.url ?? '').split('?')[0] ?? ''}`;
  const entry = fetched.get(path) ?? { requests: 0, bytes: 0 };
  entry.requests += 1;
  entry.bytes += Number(response.getHeader('content-length') ?? 0);
  fetched.set(path, entry);
  // A keep-warm read collects nothing: it does not end a router's collection.
  if (path === KEEP_WARM_PATH) return;
  const now = Date.now();
  const tick = now - (now % tickMs);
  lastReplyAfterTick.set(tick, Math.max(lastReplyAfterTick.get(tick) ?? 0, now - tick));
  if (path === PEER_LIST_PATH) peerListsByTick.set(tick, (peerListsByTick.get(tick) ?? 0) + 1);
});

const emulator = await startEmulator({
  scenario: 'scale',
  scale: { routers: Number(routers), interfaces: Number(interfaces), peers: Number(peers) },
  ...(keepAlive === '' ? {} : { keepAliveSeconds: Number(keepAlive) }),
  ...(resumption === 'tickets' || resumption === 'cache' || resumption === 'off' ? { tlsSessionResumption: resumption } : {}),
});
await emulator.ready;
// Routers that accept a connection and never answer (a router whose management plane is wedged): every request
// waits for the exporter's timeout.
for (const router of emulator.routers.slice(0, Number(hung))) router.setFaults({ hang: true });

const send = (reply: ChildReply): void => {
  process.send?.(reply);
};

process.on('message', (message: ChildRequest) => {
  if (message.type === 'stats') {
    const stats: FetchStats = Object.fromEntries(fetched);
    const connections = emulator.routers.reduce((sum, router) => sum + router.stats.connections, 0);
    const resumed = emulator.routers.reduce((sum, router) => sum + router.stats.resumed, 0);
    send({
      type: 'stats',
      stats,
      connections,
      resumed,
      lastReplyAfterTickMs: Object.fromEntries(lastReplyAfterTick),
      peerListsByTick: Object.fromEntries(peerListsByTick),
    });
  } else if (message.type === 'hang') {
    for (const router of emulator.routers.slice(0, message.routers)) router.setFaults({ hang: true });
    send({ type: 'hanging' });
  } else if (message.type === 'stop') {
    void emulator.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => {
  void emulator.close().then(() => process.exit(0));
});

send({ type: 'ready', routers: emulator.routers.map((r) => ({ name: r.name, url: r.url })), ca: emulator.ca });
