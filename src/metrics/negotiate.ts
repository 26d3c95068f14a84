/**
 * Content negotiation for /metrics: OpenMetrics when the scraper prefers it, Prometheus text 0.0.4 otherwise.
 * Prometheus 3 rejects scrapes without a valid Content-Type, so there is always one.
 */
export type ExpositionFormat = 'text' | 'openmetrics';

export const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const item of header.split(',')) {
    const [rawType, ...rawParams] = item.split(';');
    const type = (rawType ?? '').trim().toLowerCase();
    if (type === '') continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const param of rawParams) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const key = param.slice(0, eq).trim().toLowerCase();
      const value = param.slice(eq + 1).trim().replace(/^"|"$/g, '');
      if (key === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      } else {
        params.set(key, value);
      }
    }
    ranges.push({ type, params, q });
  }
  return ranges;
}

/** OpenMetrics versions we can produce. */
const OPENMETRICS_VERSIONS = new Set(['1.0.0', '0.0.1']);

/** The quality the client gives each of our formats; ties and absent headers go to text. */
export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  if (accept === undefined || accept.trim() === '') return 'text';
  let openmetrics = -1;
  let text = -1;
  for (const range of parseAccept(accept)) {
    if (range.type === 'application/openmetrics-text') {
      const version = range.params.get('version');
      if (version === undefined || OPENMETRICS_VERSIONS.has(version)) openmetrics = Math.max(openmetrics, range.q);
    } else if (range.type === 'text/plain') {
      const version = range.params.get('version');
      if (version === undefined || version === '0.0.4') text = Math.max(text, range.q);
    } else if (range.type === '*/*' || range.type === 'text/*') {
      text = Math.max(text, range.q);
    }
  }
  return openmetrics > 0 && openmetrics > text ? 'openmetrics' : 'text';
}

/** True when the client accepts gzip (q > 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  for (const item of acceptEncoding.split(',')) {
    const [coding, ...params] = item.split(';');
    const name = (coding ?? '').trim().toLowerCase();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}
