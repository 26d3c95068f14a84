/** URL building for RouterOS menu paths, record ids and query strings. */

/** `interface/wireguard/peers` → `/interface/wireguard/peers`, each segment percent-encoded. */
export function encodeMenuPath(menu: string): string {
  const segments = menu.split('/').filter((segment) => segment.length > 0);
  return '/' + segments.map((segment) => encodeURIComponent(segment)).join('/');
}

/** Ids (`*1A`) and names (`wg branch/1`) as one path segment. `*` is legal in a path and kept as RouterOS shows it. */
export function encodeRecordId(id: string): string {
  return encodeURIComponent(id);
}

/** `?interface=wg0&.proplist=a,b` — commas stay literal, as RouterOS documents `.proplist`. */
export function queryString(where?: Readonly<Record<string, string>>, proplist?: readonly string[]): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(where ?? {})) {
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  }
  if (proplist !== undefined && proplist.length > 0) {
    parts.push('.proplist=' + proplist.map((name) => encodeURIComponent(name)).join(','));
  }
  return parts.length === 0 ? '' : '?' + parts.join('&');
}
