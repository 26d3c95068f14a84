/**
 * What the HTTP server needs from the exporter, and nothing more: the server depends on this narrow interface,
 * never on the whole app (which builds the server's handler, so the dependency runs one way: app → server).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConfigProblem, RouterConfig } from '../config/types.js';
import type { Exposition, RenderedBody } from '../metrics/exposition.js';
import type { ExpositionFormat } from '../metrics/negotiate.js';
import type { SnapshotStore } from '../metrics/store.js';
import type { DiscoverOptions, DiscoverResult } from '../discovery/discover-result.js';
import type { SdGroup } from './sd-groups.js';

export type { DiscoverResult } from '../discovery/discover-result.js';
export type { SdGroup } from './sd-groups.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A reload's outcome; a refused one with its problems and, when one file was at fault, that file (`source`). */
export type ReloadResult = { ok: true } | { ok: false; problems: ConfigProblem[]; source?: string };

export interface Endpoints {
  /** /metrics: the prepared exposition. */
  readonly exposition: Pick<Exposition, 'render'>;
  /** /health: the latest snapshots, judged against the current routers at the app's own clock. */
  readonly store: Pick<SnapshotStore, 'snapshots'>;
  routers(): readonly RouterConfig[];
  now(): number;
  /** The monotonic clock runs record (JobSnapshot.finishedElapsed): peers age by it, not by a stepped wall clock. */
  elapsed(): number;
  /** The ms the process did not run since an instant of elapsed() (util/pauses.ts): peers do not age over a pause. */
  paused?(since: number): number;
  /** /-/ready */
  ready(): boolean;
  /** /-/reload, when the lifecycle API is enabled (--web.enable-lifecycle). */
  lifecycleEnabled(): boolean;
  reload(): Promise<ReloadResult>;
  /** The landing page's list. */
  routerNames(): string[];
  /** GET /probe?target=NAME: one configured or discovered router's series; undefined when no such router. */
  renderRouter(name: string, format: ExpositionFormat, gzip: boolean, head: boolean): Promise<RenderedBody> | undefined;
  /** GET /metrics?scope=exporter: the exporter's own series only. */
  renderSelf(format: ExpositionFormat, gzip: boolean, head: boolean): Promise<RenderedBody>;
  /** GET /sd: the http_sd_configs groups. */
  sdGroups(): SdGroup[];
  /**
   * GET /probe?target=HOST[:PORT]&profile=NAME (absent when no profiles are configured). Resolves once the
   * target's first collection has finished (or at once when it already exists), bounded by timeoutMs and by
   * `options.gone` (the client that asked has left).
   */
  discover?(target: string, profile: string, timeoutMs: number, options?: DiscoverOptions): Promise<DiscoverResult>;
}
