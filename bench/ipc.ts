/** Messages between bench/run.ts and its child processes. */

import { KEEP_WARM_PATH as READ_PATH } from '../src/routeros/keep-warm.js';

/** The exporter's keep-warm read (src/routeros/keep-warm.ts), as the emulator child counts requests by path. */
export const KEEP_WARM_PATH = `GET /rest${READ_PATH.split('?')[0] ?? ''}`;

/** Requests and reply bytes by `METHOD /path`, summed over every router. */
export type FetchStats = Record<string, { requests: number; bytes: number }>;

/** `hang`: the emulator's first `routers` routers stop answering from now on (an outage's onset). */
export type ChildRequest = { type: 'stats' } | { type: 'stop' } | { type: 'hang'; routers: number };

export type ChildReply =
  | { type: 'ready'; routers: { name: string; url: string }[]; ca: string }
  | {
      type: 'stats';
      stats: FetchStats;
      /** TLS connections accepted since start, and how many of them resumed a session. */
      connections: number;
      resumed: number;
      /**
       * By schedule tick (ms since the epoch): ms from the tick to the last reply finished in that interval,
       * keep-warm reads left out (they collect nothing).
       */
      lastReplyAfterTickMs: Record<string, number>;
      /** By schedule tick: wireguard peer lists answered in that interval (one per router collected). */
      peerListsByTick: Record<string, number>;
    }
  | { type: 'listening'; url: string; cycleMs?: number }
  | { type: 'hanging' };
