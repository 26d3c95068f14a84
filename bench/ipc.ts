/** Messages between bench/run.ts and its child processes. */

/** Requests and reply bytes by `METHOD /path`, summed over every router. */
export type FetchStats = Record<string, { requests: number; bytes: number }>;

export type ChildRequest = { type: 'stats' } | { type: 'stop' };

export type ChildReply =
  | { type: 'ready'; routers: { name: string; url: string }[]; ca: string }
  | { type: 'stats'; stats: FetchStats; connections: number }
  | { type: 'listening'; url: string; cycleMs?: number };
