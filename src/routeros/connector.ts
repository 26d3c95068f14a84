/**
 * How a router's TLS connections are made: one shared TLS context per trust setting, and the router's newest
 * TLS session held for the next connect, so a reconnect is a resumption rather than a full handshake.
 */
import { isIP, type Socket } from 'node:net';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import { constants } from 'node:crypto';
import { buildConnector } from 'undici';
import { keptBytes } from '../util/kept-bytes.js';
import { hostLookups, type HostLookups } from './lookup.js';
import { meterReplies } from './wire-meter.js';

export interface ConnectorOptions {
  /** PEM certificates to trust instead of the system's roots. */
  ca?: string;
  servername?: string;
  rejectUnauthorized: boolean;
  /**
   * How long a connect (TCP and the TLS handshake) may take: the router's timeout. undici's own 10 s otherwise,
   * and a request stopped while its connection is being made is only failed when the connect ends.
   */
  timeoutMs?: number;
  /** Where a router's host name is looked up: the process's one queue unless a test gives its own. */
  lookups?: HostLookups;
  /**
   * Told when a connect starts looking its host name up, and once when that ends (answered, failed, or the
   * socket closed first): a request that times out while one of its router's connects still waits for DNS
   * failed on the name, not on the router.
   */
  lookupWatch?: { started(): void; ended(): void };
  /** The most bytes one reply may take on the wire (wire-meter.ts); unbounded when not given. */
  maxReplyWireBytes?: number;
}

/** undici's connect timeout when none is given: how long a connect waits for its lookup then. */
const UNDICI_CONNECT_TIMEOUT_MS = 10_000;

/**
 * TLS contexts by the CA text they trust ('' for the system's roots). Without one, every connect builds its own
 * context and parses the CA again: at 2,000 routers reconnecting each cycle that was ~1.2 ms of CPU per connect
 * (a fifth of the fleet's collection CPU) and thousands of native OpenSSL contexts waiting for the garbage
 * collector. A context holds only what to trust; the name check, the session offered and whether to verify at
 * all are each connection's own, so routers sharing one context share nothing else.
 */
const contexts = new Map<string, SecureContext>();
const NO_RENEGOTIATION = constants.SSL_OP_NO_RENEGOTIATION;
/** A config with more distinct CAs than this rebuilds contexts now and then instead of growing without bound. */
const MAX_CONTEXTS = 256;

export function sharedSecureContext(ca: string | undefined): SecureContext {
  const key = ca ?? '';
  let context = contexts.get(key);
  if (context === undefined) {
    if (contexts.size >= MAX_CONTEXTS) contexts.clear();
    // No renegotiation: RouterOS never asks for one, and a server that asks again and again made the exporter do a
    // handshake each time, on a kept connection no request's timeout bounds (1.8 s of CPU per 5 s, found by review).
    context = createSecureContext(ca === undefined ? { secureOptions: NO_RENEGOTIATION } : { ca, secureOptions: NO_RENEGOTIATION });
    contexts.set(key, context);
  }
  return context;
}

/** Exported for tests: how many TLS contexts are held. */
export function sharedSecureContextCount(): number {
  return contexts.size;
}

/** A router's connector, and a way to end the connects still under way (its client is closing). */
export type ResumingConnector = buildConnector.connector & { abortConnecting(): void };

/**
 * Offers the router's newest TLS session on the next connect, so a reconnect after the router closed an idle
 * connection is a resumption, not a full handshake, when the router allows it. Held here, not in undici's
 * session cache, for two reasons: undici holds a session through a WeakRef, which the garbage collector of a
 * busy process drops between two cycles (the reconnect was a full handshake again); and a session handed to
 * tls.connect is parsed twice (Node's TLSSocket sets it, then tls.connect sets it again), each parse decoding the
 * router's certificate: ~0.5 ms of CPU per reconnect that setting it once here saves. About 1–2 KB per router;
 * each client has its own connector, so there is no fleet-wide cache to outgrow.
 */
export function resumingConnector(settings: ConnectorOptions): ResumingConnector {
  const options: buildConnector.BuildOptions = {
    secureContext: sharedSecureContext(settings.ca),
    ...(settings.servername === undefined ? {} : { servername: settings.servername }),
    rejectUnauthorized: settings.rejectUnauthorized,
    maxCachedSessions: 0,
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
    // A host name is looked up in the process's queue (lookup.ts); an address is never looked up.
    lookup: (settings.lookups ?? hostLookups).forConnects(settings.timeoutMs ?? UNDICI_CONNECT_TIMEOUT_MS),
  };
  // Typed as returning nothing; it returns the socket it made (a TLSSocket whose TCP connect is under way), so
  // the session can be set and the listener attached before the handshake (a TLS 1.2 session comes during it,
  // a TLS 1.3 ticket after it).
  const fresh = buildConnector(options) as Connect;
  let session: Buffer | undefined;
  const keep = (value: Buffer): void => {
    // Node 24 hands the session over as a view of its 64 KiB allocation pool: kept as it is, each router's
    // session would keep a block shared with whatever else was allocated then (kept-bytes.ts).
    session = keptBytes(value);
  };
  // Sockets whose connect (TCP, TLS handshake, or the lookup before them) has not ended. undici's destroy waits
  // for a connect under way, so a client closed while its router does not answer held the shutdown (and `check`)
  // for the router's whole timeout: closing ends them.
  const connecting = new Set<Socket>();
  /** Set by abortConnecting: no connect is made again after it (a retry would outlive the close, found by review). */
  let closed = false;
  /** What a socket's sessions and replies are heard by: the newest session kept, what comes in metered (wire-meter.ts). */
  const listenTo = (socket: Socket): void => {
    if (settings.maxReplyWireBytes === undefined) socket.on('session', keep);
    else meterReplies(socket, settings.maxReplyWireBytes, keep);
  };
  /** One connect, offering `offered`; its handshake dropped while offering it, once more without it. */
  const attempt = (connectOptions: buildConnector.Options, callback: buildConnector.Callback, offered: Buffer | undefined): void => {
    // Where Node lacks the setter, the session goes through tls.connect as documented (parsed twice).
    const connect = offered === undefined || SET_SESSION ? fresh : (buildConnector({ ...options, session: offered }) as Connect);
    let attached = false;
    let pending: Socket | undefined;
    /** When the TCP connect completed (the router took the connection); undefined until it has. */
    let reachedAt: number | undefined;
    const socket = connect(connectOptions, (...args) => {
      if (pending !== undefined) connecting.delete(pending);
      const [error, made] = args;
      if (error !== null) {
        if (!networkFailure(error)) {
          // A connection that failed — a certificate that did not verify among others — may already have handed
          // over a session (a TLS 1.3 ticket can come before the name check fails). It must never be offered
          // again: forget it.
          session = undefined;
        } else if (
          offered !== undefined &&
          reachedAt !== undefined &&
          !closed &&
          !TIMEOUT_CODES.has(String((error as { code?: unknown }).code)) &&
          // Dropped within the first half of the connect's time after the router took the connection: a retry has a
          // whole timeout of its own, and a router that held the handshake most of it before the reset cost two (found
          // by review). Counted from the TCP connect, not the attempt's start: a slow lookup used the half up and
          // lost the retry to an endpoint that refuses resumption (found by review of that fix).
          performance.now() - reachedAt < (settings.timeoutMs ?? UNDICI_CONNECT_TIMEOUT_MS) / 2
        ) {
          // The router took the TCP connection and dropped the handshake offering the session (a reset, or a close,
          // which Node reports alike): it may be the session (an endpoint that refuses resumption that way), or a
          // blip. Once more at once without it: either way the connect succeeds if it can. A network failure
          // says nothing of the session otherwise: kept, so the next connect resumes (forgetting it made that a
          // full handshake; keeping it across every failure failed every connect to such an endpoint for good;
          // forgetting it after two left it offered again, and refused, every ten minutes: found by reviews).
          attempt(connectOptions, callback, undefined);
          return;
        }
      } else if (!attached && made !== null) {
        listenTo(made);
      }
      callback(...args);
    });
    if (socket !== undefined && !socket.destroyed) {
      pending = socket;
      connecting.add(socket);
      socket.once('close', () => connecting.delete(socket));
      socket.once('connect', () => (reachedAt = performance.now()));
    }
    if (socket !== undefined && settings.lookupWatch !== undefined) watchLookup(socket, connectOptions.hostname, settings.lookupWatch);
    if (socket !== undefined) {
      // A router reached over plain HTTP (a discovery profile's scheme) gets a TCP socket: no TLS records.
      if (socket instanceof TLSSocket) socket.setMaxSendFragment(MAX_SEND_FRAGMENT_BYTES);
      // What tls.connect itself does with its session option, once instead of twice; the TCP connect has not
      // completed yet, so the handshake has not started.
      if (offered !== undefined && SET_SESSION) (socket as SessionSettable).setSession(offered);
      listenTo(socket);
      attached = true;
    }
  };
  const connector = (connectOptions: buildConnector.Options, callback: buildConnector.Callback): void => {
    attempt(connectOptions, callback, session);
  };
  return Object.assign(connector, {
    abortConnecting: (): void => {
      closed = true;
      for (const socket of [...connecting]) socket.destroy(new Error('the client was closed while connecting'));
      connecting.clear();
    },
  });
}

/**
 * The largest TLS record the exporter sends. OpenSSL sizes a connection's write buffer by it when the handshake
 * starts and keeps that buffer for the connection's life: ~17 KB at the default 16 KiB, ~2 KB here, so ~12 KB
 * less memory for each kept connection, ~20 MB for 2,000 routers (measured: 2,000 idle connections 56–60 →
 * 43–53 KB each). The exporter's requests are a few hundred bytes, so none is split; a larger one (a command
 * with a long body) goes as several records, which every TLS peer reads. Set before the handshake: after it, the
 * buffer is already made.
 */
export const MAX_SEND_FRAGMENT_BYTES = 2048;

/**
 * Failures of the network, not of TLS: the router's session stays usable after them. Anything else (a certificate
 * that did not verify, a handshake the router refused, an error not known here) forgets it.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

function networkFailure(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

/** Connect timeouts: a retry of a connect that timed out would wait as long again. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** Tells `watch` while a socket for a host name waits for its lookup; an address is never looked up. */
function watchLookup(socket: Socket, hostname: string, watch: NonNullable<ConnectorOptions['lookupWatch']>): void {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) !== 0) return;
  watch.started();
  const ended = (): void => {
    socket.off('lookup', ended);
    socket.off('connect', ended);
    socket.off('close', ended);
    watch.ended();
  };
  // net emits `lookup` once the name is answered (or not); `connect` and `close` cover a socket that never does.
  socket.once('lookup', ended);
  socket.once('connect', ended);
  socket.once('close', ended);
}

/** A TLSSocket for https, a bare TCP socket for a router reached over plain http. */
type Connect = (connectOptions: buildConnector.Options, callback: buildConnector.Callback) => Socket | undefined;
type SessionSettable = TLSSocket & { setSession(session: Buffer): void };
/** TLSSocket's session setter: tls.connect's own (Node 20–24), not in Node's typings. */
const SET_SESSION = typeof (TLSSocket.prototype as Partial<SessionSettable>).setSession === 'function';
