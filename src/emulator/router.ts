/**
 * One emulated router: its state, its HTTPS server (node:https, keep-alive) and its faults.
 * stop()/start() close and reopen the listener on the same port (drawn below the ephemeral range when none is
 * given: ports.ts); state survives both.
 */
import { constants as cryptoConstants } from 'node:crypto';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { controlEndpoint } from './http/control.js';
import { createHandler } from './http/handler.js';
import { listenKeepable } from './ports.js';
import type { BootPhase, RouterWorld } from './http/handler.js';
import type { Menu } from './menus/types.js';
import { buildTree } from './rest/tree.js';
import type { TreeNode } from './rest/tree.js';
import type { TlsMaterial } from './tls.js';
import type { RouterState } from './state/router-state.js';
import type { EmulatedRouter, Faults, HealthFaults, RebootOptions, Row, RouterStats, TlsSessionResumption } from './types.js';

export interface RouterOptions {
  host: string;
  port: number;
  tls: TlsMaterial;
  capMs: number;
  control: boolean;
  /** Idle keep-alive connections stay open this long; default 30 s (a scrape every 15 s reuses its connection). */
  keepAliveMs?: number;
  /** Default 'tickets'. */
  tlsSessionResumption?: TlsSessionResumption;
}

const KEEP_ALIVE_MS = 30_000;
/** Sessions a `cache` router remembers; the oldest goes first (a router's web server keeps a few, not all). */
const SESSION_CACHE_ENTRIES = 64;

export class RouterHandle implements EmulatedRouter {
  readonly name: string;
  readonly version: string;
  readonly stats: RouterStats = { connections: 0, resumed: 0, requests: 0 };
  #build: (() => RouterState) | undefined;
  #world: RouterWorld | undefined;
  readonly #options: RouterOptions;
  #port: number;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #inflight = new Set<AbortController>();
  #faults: Faults[] = [];
  /** Real-time window of the post-boot race (performance.now() milliseconds). */
  #race: { from: number; ms: number } | undefined;

  /**
   * `build` makes the state; it runs at once (`eager`) or on first use, so 100 scale-scenario
   * routers start listening without first building 100,000 peers.
   */
  constructor(name: string, version: string, build: () => RouterState, options: RouterOptions, eager: boolean) {
    this.name = name;
    this.version = version;
    this.#build = build;
    this.#options = options;
    this.#port = options.port;
    if (eager) this.warm();
  }

  /** Builds the state now if it was not yet (idempotent). */
  warm(): RouterWorld {
    if (this.#world === undefined) {
      const build = this.#build;
      if (build === undefined) throw new Error('unreachable: router has neither state nor builder');
      const state = build();
      this.#world = { state, tree: buildTree(state) };
      this.#build = undefined;
    }
    return this.#world;
  }

  get #state(): RouterState {
    return this.warm().state;
  }

  get #tree(): TreeNode {
    return this.warm().tree;
  }

  get openConnections(): number {
    return this.#sockets.size;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    return `https://${host}:${this.#port}`;
  }

  async start(): Promise<void> {
    if (this.#server !== undefined) return;
    const handler = createHandler({
      world: () => this.warm(),
      bootPhase: () => this.#bootPhase(),
      stats: this.stats,
      capMs: this.#options.capMs,
      faults: () => this.#faults,
      track: (c) => {
        this.#inflight.add(c);
        return () => this.#inflight.delete(c);
      },
      ...(this.#options.control ? { control: controlEndpoint(this.#controllable()) } : {}),
    });
    const resumption = this.#options.tlsSessionResumption ?? 'tickets';
    const server = createServer(
      {
        cert: this.#options.tls.cert,
        key: this.#options.tls.key,
        // Without tickets, a client can resume only by session id, from the cache below when there is one.
        ...(resumption === 'tickets' ? {} : { secureOptions: cryptoConstants.SSL_OP_NO_TICKET }),
        // Session ids resume only in TLS 1.2 (TLS 1.3 resumes by ticket): such a router speaks TLS 1.2.
        ...(resumption === 'cache' ? { maxVersion: 'TLSv1.2' as const } : {}),
      },
      handler,
    );
    if (resumption === 'cache') sessionCache(server);
    server.keepAliveTimeout = this.#options.keepAliveMs ?? KEEP_ALIVE_MS;
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      this.stats.connections++;
      if (socket.isSessionReused()) this.stats.resumed++;
    });
    // A TLS handshake failure (e.g. a client that distrusts the CA) is the client's problem.
    server.on('tlsClientError', () => undefined);
    // Without a listener node drops a CONNECT without an answer; the router's web server is no proxy, so it
    // refuses the method like any other it does not serve.
    server.on('connect', (_req, socket: Duplex) => {
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    await listenKeepable(server, this.#port, this.#options.host);
    const address = server.address();
    if (address !== null && typeof address === 'object') this.#port = address.port;
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    for (const c of this.#inflight) c.abort(new Error('router stopped'));
    this.#inflight.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    await closed;
  }

  setFaults(faults: Faults | Faults[]): void {
    this.#faults = Array.isArray(faults) ? [...faults] : [faults];
  }

  clearFaults(): void {
    this.#faults = [];
  }

  reboot(options: RebootOptions = {}): void {
    this.#state.reboot();
    this.#race = options.raceMs !== undefined && options.raceMs > 0 ? { from: performance.now(), ms: options.raceMs } : undefined;
  }

  #bootPhase(): BootPhase {
    if (this.#race === undefined) return 'up';
    const elapsed = performance.now() - this.#race.from;
    if (elapsed >= this.#race.ms) {
      this.#race = undefined;
      return 'up';
    }
    return elapsed < this.#race.ms / 2 ? 'unauthorized' : 'wrong-body';
  }

  #menu(path: string): Menu {
    let node: TreeNode | undefined = this.#tree;
    for (const word of path.replace(/^\/+|\/+$/g, '').split('/')) node = node?.children.get(word);
    if (node?.menu === undefined) throw new Error(`${this.name} has no menu ${path}`);
    return node.menu;
  }

  rows(menu: string): Row[] {
    const m = this.#menu(menu);
    const view = { sensitive: true, now: this.#state.now() };
    return m.kind === 'singleton' ? [m.row(view)] : m.rows(view);
  }

  row(menu: string, ref: string): Row | undefined {
    const m = this.#menu(menu);
    if (m.kind === 'singleton') return undefined;
    const id = m.find(ref);
    return id === undefined ? undefined : m.row(id, { sensitive: true, now: this.#state.now() });
  }

  password(user: string): string | undefined {
    return this.#state.users.get(user)?.password;
  }

  setHealth(faults: HealthFaults): void {
    this.#state.healthFaults = { ...faults };
  }

  setLink(name: string, up: boolean): boolean {
    const link = this.#state.links.byName(name);
    if (link === undefined) return false;
    link.sim.setLink(up, this.#state.now());
    return true;
  }

  outsideCalls(): readonly string[] {
    return [...this.#state.outsideCalls];
  }

  #controllable(): Parameters<typeof controlEndpoint>[0] {
    return {
      faults: () => this.#faults,
      setFaults: (f) => this.setFaults(f),
      clearFaults: () => this.clearFaults(),
      reboot: (options) => this.reboot(options),
      setHealth: (h) => this.setHealth(h),
      setLink: (name, up) => this.setLink(name, up),
      outsideCalls: () => this.outsideCalls(),
    };
  }
}

/** A bounded server-side session cache by session id (`tlsSessionResumption: 'cache'`). */
function sessionCache(server: Server): void {
  const sessions = new Map<string, Buffer>();
  server.on('newSession', (id: Buffer, data: Buffer, done: () => void) => {
    sessions.set(id.toString('hex'), data);
    if (sessions.size > SESSION_CACHE_ENTRIES) sessions.delete(sessions.keys().next().value as string);
    done();
  });
  server.on('resumeSession', (id: Buffer, done: (error: Error | null, data: Buffer | null) => void) => {
    done(null, sessions.get(id.toString('hex')) ?? null);
  });
}
