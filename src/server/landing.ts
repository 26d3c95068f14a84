/** GET /: a small page linking the endpoints, as Prometheus exporters do. */
export function landingPage(version: string, routers: readonly string[]): string {
  const items = routers
    .map((name) => {
      const query = encodeURIComponent(name);
      return `<li>${escapeHtml(name)}: <a href="probe?target=${query}">metrics</a>, <a href="health?router=${query}">health</a></li>`;
    })
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>RouterOS Exporter</title>
<style>body{font-family:system-ui,sans-serif;max-width:50em;margin:2em auto;line-height:1.5}code{background:#eee;padding:0 .2em}</style>
</head><body>
<h1>RouterOS Exporter</h1>
<p>Version <code>${escapeHtml(version)}</code>: Prometheus metrics and health verdicts for MikroTik RouterOS 7 routers and their WireGuard tunnels.</p>
<ul>
<li><a href="metrics">/metrics</a>: Prometheus exposition of every router and the exporter (<a href="metrics?scope=exporter">the exporter's own series only</a>)</li>
<li><code>/probe?target=NAME</code>: one router's series, for one Prometheus target per router</li>
<li><a href="sd">/sd</a>: the routers as Prometheus HTTP service discovery (<code>http_sd_configs</code>)</li>
<li><a href="health">/health</a>: health verdicts (JSON; 200 when ok, 503 otherwise)</li>
<li><a href="-/healthy">/-/healthy</a>: liveness</li>
<li><a href="-/ready">/-/ready</a>: readiness</li>
<li><code>POST /-/reload</code>: reload the configuration (when started with <code>--web.enable-lifecycle</code> or behind Basic users)</li>
</ul>
<h2>Routers</h2><ul>${items}</ul>
</body></html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
