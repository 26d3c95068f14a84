/**
 * The demo's exporter config: every router of the emulator's demo scenario, short schedules so every
 * metric family has data within seconds, the set-up audit on, and a stale threshold short enough that the
 * going-stale peer turns stale within minutes.
 */
import { resolveConfig } from '../config/index.js';
import type { Config } from '../config/types.js';

/** Pings and bandwidth tests per demo router (targets exist in the emulator's demo scenario). */
const PROBES: Record<string, { ping: object[]; bandwidth_test: object[] }> = {
  hq: {
    ping: [
      { target: '10.10.0.2', name: 'branch-1-tunnel', interface: 'wg-branches', interval: '200ms' },
      { target: '10.10.0.3', name: 'branch-2-tunnel', interface: 'wg-branches', interval: '200ms' },
      { target: '10.20.0.10', name: 'anna-laptop', interface: 'wg-roadwarriors', interval: '200ms' },
    ],
    bandwidth_test: [
      { target: '10.10.0.2', name: 'branch-1', duration: '2s', schedule: '5,35 * * * * *' },
      { target: '10.10.0.3', name: 'branch-2', duration: '2s', schedule: '20,50 * * * * *' },
    ],
  },
  'branch-1': {
    ping: [{ target: '10.10.0.1', name: 'hq-tunnel', interface: 'wg-hq', interval: '200ms' }],
    bandwidth_test: [{ target: '10.10.0.1', name: 'hq', duration: '2s', user: 'btest', password: 'demo-btest-secret', schedule: '10,40 * * * * *' }],
  },
  'branch-2': {
    ping: [{ target: '10.10.0.1', name: 'hq-tunnel', interface: 'wg-hq', interval: '200ms' }],
    bandwidth_test: [{ target: '10.10.0.1', name: 'hq', duration: '2s', schedule: '15,45 * * * * *' }],
  },
};

/**
 * What the config needs of the emulator: its routers' names and URLs. A shape of its own rather than the
 * emulator's `Emulator` type, so nothing in the exporter imports from src/emulator (docs/architecture.md,
 * "The emulator fence"); the real emulator satisfies it structurally.
 */
export interface DemoRouters {
  readonly routers: readonly { readonly name: string; readonly url: string }[];
}

export interface DemoConfigOptions {
  listen: string;
  /** Path of the emulator's CA, written by the caller. */
  caFile: string;
  logLevel?: Config['logLevel'];
}

export function demoConfig(emulator: DemoRouters, options: DemoConfigOptions): Config {
  return resolveConfig(
    {
      listen: options.listen,
      log_level: options.logLevel ?? 'info',
      defaults: {
        username: 'admin',
        password: '',
        timeout: '4s',
        tls: { ca_file: options.caFile },
        schedules: {
          system: '*/5 * * * * *',
          wireguard: '*/5 * * * * *',
          wireguard_setup: '*/30 * * * * *',
          ping: '*/10 * * * * *',
        },
        collectors: { wireguard_setup: true },
        health: { handshake_stale_after: '2m' },
      },
      routers: emulator.routers.map((router) => ({
        name: router.name,
        url: router.url,
        ...(PROBES[router.name] ?? {}),
        // One router shows the data-plane probe (docs/health.md, "Data-plane probes"): its uplink declared
        // always-on is probed by default (probe_tunnels auto), 3 pings a probe so rtt and loss have data.
        ...(router.name === 'branch-1' ? { health: { expect: { hq: 'always' }, probe_count: 3 } } : {}),
      })),
    },
    { source: '<demo>', baseDir: process.cwd(), env: {} },
  );
}
