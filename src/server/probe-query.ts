/**
 * The query of GET /probe, checked before anything is looked up: `target` once (required), `profile` at most once,
 * both bounded and free of control characters. Other parameters are ignored, as blackbox_exporter and
 * snmp_exporter ignore what they do not know (a scrape config may carry `module` or its own). Never throws;
 * a refusal is a short fixed sentence that never echoes the value.
 *
 * Also the scrape's own timeout (X-Prometheus-Scrape-Timeout-Seconds), which bounds how long a first probe of
 * a profile target may wait for its first collection.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_TARGET_LENGTH } from '../discovery/target.js';

/**
 * A router name or HOST[:PORT]: the discovery target's own bound, so that every target a profile accepts gets
 * past the query check (a lower bound here once refused 257 to 262-character targets the docs promise).
 */
export { MAX_TARGET_LENGTH };
export const MAX_PROFILE_LENGTH = 64;

export type ProbeQuery =
  | { ok: true; target: string; profile: string | undefined }
  | { ok: false; /** For the 400 body. */ reason: string };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

function single(query: URLSearchParams, name: string, max: number): { value: string | undefined } | { reason: string } {
  const values = query.getAll(name);
  if (values.length > 1) return { reason: `give "${name}" once, not ${values.length} times` };
  const value = values[0];
  if (value === undefined) return { value: undefined };
  if (value === '') return { reason: `"${name}" is empty` };
  if (value.length > max) return { reason: `"${name}" is longer than ${max} characters` };
  if (CONTROL.test(value)) return { reason: `"${name}" holds a control character` };
  return { value };
}

export function parseProbeQuery(query: URLSearchParams): ProbeQuery {
  const target = single(query, 'target', MAX_TARGET_LENGTH);
  if ('reason' in target) return { ok: false, reason: target.reason };
  if (target.value === undefined) return { ok: false, reason: 'the "target" parameter is required (/probe?target=NAME)' };
  const profile = single(query, 'profile', MAX_PROFILE_LENGTH);
  if ('reason' in profile) return { ok: false, reason: profile.reason };
  return { ok: true, target: target.value, profile: profile.value };
}

/** When Prometheus does not say (an older one, curl): its own default scrape_timeout. */
export const DEFAULT_SCRAPE_TIMEOUT_MS = 10_000;
/** Answer this much before the scraper gives up, so the answer arrives in time. */
export const SCRAPE_TIMEOUT_MARGIN_MS = 500;
/** At least this long: a tiny or hostile header must not make every first probe a timeout at once. */
export const MIN_WAIT_MS = 100;
/** At most this long: below the server's response deadline (guard.ts, 30 s), which would cut the answer. */
export const MAX_WAIT_MS = 25_000;

/** How long a first probe may wait: the scrape's timeout minus a margin, bounded; 10 s less the margin when absent or unreadable. */
export function probeWaitMs(headers: IncomingHttpHeaders): number {
  const raw = headers['x-prometheus-scrape-timeout-seconds'];
  const text = Array.isArray(raw) ? raw[0] : raw;
  const seconds = text === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(text) ? undefined : Number(text);
  const timeoutMs = seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 ? DEFAULT_SCRAPE_TIMEOUT_MS : seconds * 1000;
  return Math.round(Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, timeoutMs - SCRAPE_TIMEOUT_MARGIN_MS)));
}
