/**
 * What the discovered-target registry answers for GET /probe?target=HOST[:PORT]&profile=NAME, through
 * `Endpoints.discover`; the server's probe-route.ts maps each kind to a status. It lives beside the registry so
 * that the server depends on discovery and never the other way.
 */
/** How a probe asks: `gone` ends its wait when its client leaves; `fromPage` when a page of another site asked for it. */
export interface DiscoverOptions {
  gone?: AbortSignal;
  /** A page of another site asked (cross-site.ts): a target already polled is served, none is created for it. */
  fromPage?: boolean;
}

export type DiscoverResult =
  | { kind: 'ready'; router: string } // serve renderRouter(router) — may have failed collection; that is in its series
  | { kind: 'unknown_profile' } // 404
  | { kind: 'refused'; reason: string } // 403: outside the profile's allow list (no connection made)
  | { kind: 'full'; reason: string; retryAfterSeconds?: number } // 429: the profile's cap is reached; Retry-After: when a target is due to go
  | { kind: 'timeout'; router: string } // first collection still running at the deadline: serve what exists, 200
  | { kind: 'closed' }; // 503: the exporter is shutting down and takes no new target in
