/**
 * What the HTTP server needs from the exporter, and nothing more: the server depends on this narrow interface,
 * never on the whole app (which builds the server's handler, so the dependency runs one way: app → server).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConfigProblem, RouterConfig } from '../config/types.js';
import type { Exposition } from '../metrics/exposition.js';
import type { SnapshotStore } from '../metrics/store.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export type ReloadResult = { ok: true } | { ok: false; problems: ConfigProblem[] };

export interface Endpoints {
  /** /metrics: the prepared exposition. */
  readonly exposition: Pick<Exposition, 'render'>;
  /** /health: the latest snapshots, judged against the current routers at the app's own clock. */
  readonly store: Pick<SnapshotStore, 'snapshots'>;
  routers(): readonly RouterConfig[];
  now(): number;
  /** /-/ready */
  ready(): boolean;
  /** /-/reload, when the lifecycle API is enabled (--web.enable-lifecycle). */
  lifecycleEnabled(): boolean;
  reload(): Promise<ReloadResult>;
  /** The landing page's list. */
  routerNames(): string[];
}
