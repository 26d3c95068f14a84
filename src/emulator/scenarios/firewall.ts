/**
 * A RouterOS-like default firewall, with the WireGuard accept rules placed first so the tunnel
 * set-up audit passes: UDP to each listen port in `input`, and both directions of every routed
 * subnet pair in `forward`, all before any drop.
 */
import type { FirewallRuleSeed } from '../types.js';

export interface FirewallPlan {
  /** Listen ports to accept in `input` (leave one out to fail the audit on purpose). */
  wgPorts: number[];
  /** [local subnet, remote subnet] pairs routed through tunnels. */
  forwardPairs: [string, string][];
}

export function defaultFirewall(plan: FirewallPlan): FirewallRuleSeed[] {
  const rules: FirewallRuleSeed[] = [];
  if (plan.wgPorts.length > 0) {
    rules.push({ chain: 'input', action: 'accept', protocol: 'udp', dstPort: plan.wgPorts.join(','), comment: 'allow WireGuard' });
  }
  rules.push(
    { chain: 'input', action: 'accept', connectionState: 'established,related,untracked', comment: 'defconf: accept established,related,untracked' },
    { chain: 'input', action: 'drop', connectionState: 'invalid', comment: 'defconf: drop invalid' },
    { chain: 'input', action: 'accept', protocol: 'icmp', comment: 'defconf: accept ICMP' },
    { chain: 'input', action: 'drop', inInterfaceList: '!LAN', comment: 'defconf: drop all not coming from LAN' },
  );
  for (const [local, remote] of plan.forwardPairs) {
    rules.push(
      { chain: 'forward', action: 'accept', srcAddress: local, dstAddress: remote, comment: `site-to-site ${local} -> ${remote}` },
      { chain: 'forward', action: 'accept', srcAddress: remote, dstAddress: local, comment: `site-to-site ${remote} -> ${local}` },
    );
  }
  rules.push(
    { chain: 'forward', action: 'accept', connectionState: 'established,related,untracked', comment: 'defconf: accept established,related,untracked' },
    { chain: 'forward', action: 'drop', connectionState: 'invalid', comment: 'defconf: drop invalid' },
    { chain: 'forward', action: 'drop', inInterfaceList: 'WAN', comment: 'defconf: drop all from WAN' },
  );
  return rules;
}
