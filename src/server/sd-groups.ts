/**
 * GET /sd: Prometheus HTTP service discovery (http_sd_configs) for the configured routers, so Prometheus owns one
 * target per router and scrapes it at /probe?target=NAME (docs/deployment.md, "Single target vs multi-target").
 *
 * One group per router, `targets: [NAME]`. Target labels: `router` and the router's `labels:`, the same values
 * its series carry, as a scrape reads them back (redacted and bounded: labelValueReadBack), so the example scrape
 * configs set `honor_labels: true`: without it Prometheus would rename the series' own copies to `exported_*`.
 * The target itself is the name as configured: it is what /probe looks the router up by. Meta labels (`__meta_routeros_*`, dropped after relabelling unless
 * kept) say where the router is and which shard polls it. The URL's host and port only: a URL never carries
 * credentials here, and passwords never leave the config.
 *
 * Only the routers this replica polls are listed: with `--shard i/n` the config's routers are already this
 * shard's (cli/overrides.ts), and the filter below holds it for a config built any other way. Otherwise
 * Prometheus would probe a replica for routers it never collects, and get 404s.
 */
import { DEFAULT_PORT } from '../config/net.js';
import type { RouterConfig, ShardConfig } from '../config/types.js';
import { inShard } from '../scheduler/shard.js';
import { labelValueReadBack } from '../metrics/text.js';

export interface SdGroup {
  targets: string[];
  labels: Record<string, string>;
}

function where(url: string): { scheme: string; host: string; port: string } | undefined {
  try {
    const parsed = new URL(url);
    // IPv6 hosts come bracketed (`[2001:db8::1]`); the label holds the address itself.
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    const scheme = parsed.protocol.replace(/:$/, '');
    const port = parsed.port !== '' ? parsed.port : scheme === 'https' || scheme === 'http' ? String(DEFAULT_PORT[scheme]) : '';
    return { scheme, host, port };
  } catch {
    return undefined;
  }
}

export function sdGroupsOf(routers: readonly RouterConfig[], shard: ShardConfig | undefined): SdGroup[] {
  const groups: SdGroup[] = [];
  for (const router of routers) {
    if (!inShard(router.name, shard)) continue;
    const labels: Record<string, string> = {};
    for (const key of Object.keys(router.labels).sort()) labels[key] = labelValueReadBack(router.labels[key] as string);
    labels['router'] = labelValueReadBack(router.name);
    labels['__meta_routeros_router'] = router.name;
    const place = where(router.url);
    if (place !== undefined) {
      labels['__meta_routeros_address'] = place.host;
      labels['__meta_routeros_port'] = place.port;
      labels['__meta_routeros_scheme'] = place.scheme;
    }
    for (const key of Object.keys(router.labels).sort()) labels[`__meta_routeros_label_${key}`] = labelValueReadBack(router.labels[key] as string);
    if (shard !== undefined) {
      labels['__meta_routeros_shard_index'] = String(shard.index);
      labels['__meta_routeros_shard_count'] = String(shard.count);
    }
    groups.push({ targets: [router.name], labels });
  }
  return groups;
}
