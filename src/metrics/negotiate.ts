/**
 * Content negotiation for /metrics: OpenMetrics when the scraper prefers it, Prometheus text otherwise (0.0.4, or
 * 1.0.0 when asked for above it).
 * Prometheus 3 rejects scrapes without a valid Content-Type, so there is always one.
 */
export type ExpositionFormat = 'text' | 'openmetrics';

export const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** One member of an Accept or Accept-Encoding list: the media range or coding, its `version` if any, its weight. */
interface Member {
  name: string;
  version: string | undefined;
  q: number;
}

/**
 * Members read from one header. Scrapers send a handful; the rest of a hostile one (a header may be as long as
 * the server's header limit) is ignored, so a request costs a bounded parse. Each member is scanned once.
 */
export const MAX_LIST_MEMBERS = 64;

const QVALUE = /^(?:0(?:\.\d*)?|1(?:\.0*)?)$/;

/**
 * The text split at `separator` where it stands outside a quoted string (RFC 9110 §5.6.4: a quoted parameter value
 * may hold `,` and `;`, and `\\` escapes a character in it), at most `max` pieces: the scan stops there, and the
 * ignored rest is never cut into strings. A `,` inside quotes split a member in two, and `foo="a,b";q=0.1` then
 * lost its q (found by review).
 */
function splitOutsideQuotes(text: string, separator: ',' | ';', max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let quoted = false;
  /** Where the piece holding the last quote opened starts, and how many pieces came before it. */
  let openedAt = 0;
  let opened = 0;
  for (let i = 0; i < text.length && pieces.length < max; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
      openedAt = start;
      opened = pieces.length;
    } else if (char === separator) {
      pieces.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) {
    // A quote never closed quotes nothing: the text from its piece on is split as if it were a plain character, as
    // before quotes were read (it swallowed every later member and could flip the format; review of the change).
    const rest = text.slice(openedAt);
    // (split's limit is a 32-bit count: Infinity would read as 0, and give nothing.)
    return [...pieces.slice(0, opened), ...(Number.isFinite(max) ? rest.split(separator, max - opened) : rest.split(separator))];
  }
  if (pieces.length < max) pieces.push(text.slice(start));
  return pieces;
}

function parseList(header: string): Member[] {
  const members: Member[] = [];
  for (const item of splitOutsideQuotes(header, ',', MAX_LIST_MEMBERS)) {
    // Parameters uncapped, as before: a member is already bounded by the header, and a q after many is still read.
    const [rawName, ...rawParams] = splitOutsideQuotes(item, ';', Number.POSITIVE_INFINITY);
    const name = (rawName ?? '').trim().toLowerCase();
    if (name === '') continue;
    let version: string | undefined;
    let q = 1;
    for (const param of rawParams) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      // Parameter names are case-insensitive (RFC 9110 §5.6.6), so `Q=0` refuses as `q=0` does.
      const key = param.slice(0, eq).trim().toLowerCase();
      const value = unquote(param.slice(eq + 1).trim());
      if (key === 'q') {
        // A qvalue is a plain decimal from 0 to 1 (RFC 9110 §12.4.2; more than three decimals let through). Any
        // other spelling Number() would read (`0x1`, `1e0`, `+1`, `2`) makes the member unacceptable.
        q = QVALUE.test(value) ? Number(value) : 0;
      } else if (key === 'version') {
        version = value;
      }
    }
    members.push({ name, version, q });
  }
  return members;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/**
 * What we can serve, as media types a range may match, each format's first the one sent on a tie. OpenMetrics
 * 0.0.1 and 1.0.0 are the same text for our families, and so are Prometheus text 0.0.4 and 1.0.0 (1.0.0 adds
 * quoted UTF-8 names, which we never write), so a scraper asking for either gets it. Only `version` tells
 * representations apart: other parameters (`charset`, `escaping`, …) are ignored, as the body is always UTF-8
 * and every name we write is a legacy Prometheus name, so each escaping scheme leaves it as it is. Text 1.0.0
 * was not ours: a scraper that rated it above OpenMetrics (Prometheus 3 with PrometheusText1.0.0 first in its
 * scrape_protocols) was answered OpenMetrics (found by review).
 */
const REPRESENTATIONS: readonly { format: ExpositionFormat; type: string; subtype: string; version: string }[] = [
  { format: 'text', type: 'text', subtype: 'plain', version: '0.0.4' },
  { format: 'text', type: 'text', subtype: 'plain', version: '1.0.0' },
  { format: 'openmetrics', type: 'application', subtype: 'openmetrics-text', version: '1.0.0' },
  { format: 'openmetrics', type: 'application', subtype: 'openmetrics-text', version: '0.0.1' },
];

/**
 * How specific `range` is about `representation`, or -1 when it does not match: `*\/*` 0, `type/*` 1,
 * `type/subtype` 2, plus 1 for a matching `version`.
 */
function specificity(range: Member, representation: (typeof REPRESENTATIONS)[number]): number {
  const slash = range.name.indexOf('/');
  if (slash < 0) return -1;
  const type = range.name.slice(0, slash).trim();
  const subtype = range.name.slice(slash + 1).trim();
  let score: number;
  if (type === '*' && subtype === '*') score = 0;
  else if (type === representation.type && subtype === '*') score = 1;
  else if (type === representation.type && subtype === representation.subtype) score = 2;
  else return -1;
  if (range.version === undefined) return score;
  return range.version === representation.version ? score + 1 : -1;
}

/**
 * The quality the client gives a representation (RFC 9110 §12.5.1): that of the most specific range matching
 * it, so `text/plain;q=0, *\/*` refuses text however much `*\/*` allows. Equally specific ranges differ only in
 * parameters we ignore, and our body satisfies each of them, so the best of them counts. 0 when none matches.
 */
function quality(ranges: readonly Member[], representation: (typeof REPRESENTATIONS)[number]): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const score = specificity(range, representation);
    if (score > best) {
      best = score;
      q = range.q;
    } else if (score === best && score >= 0) {
      q = Math.max(q, range.q);
    }
  }
  return q;
}

/**
 * OpenMetrics only when the client rates it above text: equal qualities (`*\/*`, no header) go to text, the
 * format every Prometheus-compatible scraper reads. When the client accepts neither (all q=0, or only other
 * types) we still send text rather than 406: RFC 9110 §12.1 lets a server disregard the header, and a scrape
 * that gets a body it can report on is more useful than one that gets an error, as other exporters do.
 */
/**
 * The Content-Type of `format` as the client asked for it: in the version it rates highest, on a tie the one
 * Prometheus' own libraries answer (text 0.0.4, OpenMetrics 1.0.0; a client that accepts only OpenMetrics 0.0.1
 * was answered 1.0.0; found by review). The body is the same for every version of a format.
 */
export function contentTypeFor(accept: string | undefined, format: ExpositionFormat): string {
  if (accept === undefined) return CONTENT_TYPES[format];
  const ranges = parseList(accept);
  let chosen: (typeof REPRESENTATIONS)[number] | undefined;
  let best = -1;
  for (const representation of REPRESENTATIONS) {
    if (representation.format !== format) continue;
    const q = quality(ranges, representation);
    if (q > best) {
      best = q;
      chosen = representation;
    }
  }
  return chosen === undefined ? CONTENT_TYPES[format] : `${chosen.type}/${chosen.subtype}; version=${chosen.version}; charset=utf-8`;
}

export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  if (accept === undefined || accept.trim() === '') return 'text';
  const ranges = parseList(accept);
  const best: Record<ExpositionFormat, number> = { text: 0, openmetrics: 0 };
  for (const representation of REPRESENTATIONS) {
    best[representation.format] = Math.max(best[representation.format], quality(ranges, representation));
  }
  return best.openmetrics > best.text ? 'openmetrics' : 'text';
}

/**
 * True when the client accepts gzip (RFC 9110 §12.5.3): `gzip` (or its alias `x-gzip`) with q > 0, or when
 * neither is listed, `*` with q > 0 (`*` stands only for codings listed nowhere else, so `gzip;q=0, *` refuses
 * gzip). A coding listed more than once is refused if any listing refuses it: a client that cannot inflate
 * gets nothing it can read, while the identity body is always safe. `identity;q=0` does not change this: the
 * identity body goes out anyway when gzip is not acceptable (RFC 9110 §12.1 lets a server disregard the header).
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const { name, q } of parseList(acceptEncoding)) {
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.min(gzip ?? 1, q);
    else if (name === '*') any = Math.min(any ?? 1, q);
  }
  return (gzip ?? any ?? 0) > 0;
}
