/**
 * Every liveness state is named where users read the list of them: the state family's HELP text, the README's
 * health section and docs/health.md's table. `blocked` was added to the verdict and left out of the first two
 * (found by review), so a query built from the HELP text missed blocked tunnels.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PEER_STATES } from '../../src/analysis/liveness.js';
import { WIREGUARD_FAMILIES } from '../../src/collectors/wireguard.contract.js';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the peer states, wherever they are listed', () => {
  it('are all in routeros_wireguard_peer_state\'s HELP text', () => {
    const help = WIREGUARD_FAMILIES.wgPeerState.help;
    for (const state of PEER_STATES) expect(help, state).toMatch(new RegExp(`\\b${state}\\b`));
  });

  it('are all in the README\'s health section and in docs/health.md\'s state table', () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## Health'), readme.indexOf('\n## ', readme.indexOf('## Health') + 1));
    const table = read('docs/health.md');
    for (const state of PEER_STATES) {
      expect(section, state).toContain(`\`${state}\``);
      expect(table, state).toMatch(new RegExp(`^\\| \`${state}\` \\|`, 'm'));
    }
  });
});
