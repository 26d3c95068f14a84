/** `wireguard_setup`'s contract: its descriptor (config defaults) and its metric family. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';
// Exposed among the per-interface wireguard families, after the MTU: one interface's series stay together.
import { WIREGUARD_FAMILIES } from './wireguard.contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const WIREGUARD_SETUP_FAMILIES = {
  wgInterfaceSetupOk: defineFamily('routeros_wireguard_interface_setup_ok', 'gauge', ['interface', 'check'], 'Tunnel set-up audit per check (address: ip/address on the interface; route: ip/route through it for routed peer subnets; firewall_input / firewall_forward: ip/firewall/filter accept before any drop); 1 passes, 0 fails.', WIREGUARD_FAMILIES.wgInterfaceMtu),
} as const;

export const WIREGUARD_SETUP = {
  name: 'wireguard_setup',
  description: 'Tunnel set-up audit: IP address, routes and firewall rules each WireGuard interface needs (read-only)',
  // Off by default: it needs read access to the firewall and routes, which some users do not grant.
  defaultEnabled: false,
  // It reads addresses, routes and firewall rules: heavier, and they rarely change.
  defaultSchedule: '0 */5 * * * *',
  jobsPer: 'router',
  // Set-up checks are skipped on disabled interfaces, which only the wireguard data tells.
  healthParts: ['wireguard', 'setup'],
  families: Object.values(WIREGUARD_SETUP_FAMILIES),
} as const satisfies CollectorDescriptor;
