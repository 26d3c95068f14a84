/**
 * The console menu tree of one router: directories hold a menu (records), commands, or both.
 * Menus listed in the router's `missingMenus` are left out, so they answer like a router
 * without them (400 no such command or directory).
 */
import { bandwidthTest } from '../commands/bandwidth.js';
import { changePassword } from '../commands/password.js';
import { ping } from '../commands/ping.js';
import { monitorEthernet } from '../commands/monitor.js';
import type { CommandNode } from '../commands/types.js';
import type { Menu } from '../menus/types.js';
import type { RouterState } from '../state/router-state.js';

export interface TreeNode {
  readonly path: string;
  readonly children: Map<string, TreeNode>;
  readonly menu?: Menu;
  readonly command?: CommandNode;
  /**
   * A menu this router lacks (missingMenus): kept as a marker so a parent that is itself a menu
   * (`interface`) answers 400 for the word, not "no such record" 404.
   */
  readonly absent?: true;
}

export function buildTree(state: RouterState): TreeNode {
  const root: TreeNode = { path: '', children: new Map() };
  const put = (path: string, content: { menu?: Menu; command?: CommandNode } = {}): void => {
    const words = path.split('/');
    let node = root;
    for (let i = 0; i < words.length - 1; i++) {
      const next = node.children.get(words[i] ?? '');
      if (next === undefined || next.absent === true) return; // the parent is missing: so is this
      node = next;
    }
    if (state.missingMenus.has(path)) {
      node.children.set(words[words.length - 1] ?? '', { path, children: new Map(), absent: true });
      return;
    }
    node.children.set(words[words.length - 1] ?? '', { path, children: new Map(), ...content });
  };
  const pingNode: CommandNode = { run: ping, policy: 'test' };
  put('ping', { command: pingNode });
  put('password', { command: { run: changePassword, policy: 'password' } });
  put('interface', { menu: state.interfaces });
  put('interface/ethernet', { menu: state.ethernetMenu });
  put('interface/ethernet/monitor', { command: { run: monitorEthernet, policy: 'read' } });
  put('interface/wireguard', { menu: state.wireguard });
  put('interface/wireguard/peers', { menu: state.peers });
  put('interface/list', { menu: state.interfaceLists });
  put('interface/list/member', { menu: state.interfaceListMembers });
  put('ip');
  put('ip/address', { menu: state.addresses });
  put('ip/route', { menu: state.routes });
  put('ip/firewall');
  put('ip/firewall/filter', { menu: state.filter });
  put('system');
  put('system/resource', { menu: state.resource });
  put('system/identity', { menu: state.identity });
  put('system/health', { menu: state.health });
  if (state.routerboard !== undefined) {
    put('system/routerboard', { menu: state.routerboard });
    put('system/routerboard/upgrade', { command: recorded(state, 'system/routerboard/upgrade') });
  }
  put('system/package');
  put('system/package/update', { menu: state.packageUpdate });
  for (const word of ['check-for-updates', 'download', 'install']) {
    put(`system/package/update/${word}`, { command: recorded(state, `system/package/update/${word}`) });
  }
  put('system/reboot', {
    command: {
      run: () => {
        state.reboot();
        return [];
      },
      policy: 'reboot',
    },
  });
  put('tool');
  put('tool/ping', { command: pingNode });
  put('tool/bandwidth-test', { command: { run: bandwidthTest, policy: 'test' } });
  return root;
}

/**
 * A command that on a real router contacts the outside (MikroTik's update servers) or flashes
 * firmware: the emulator only records the call (EmulatedRouter.outsideCalls) and answers `[]`, so
 * exporter tests can assert it is never made.
 */
function recorded(state: RouterState, path: string): CommandNode {
  return {
    run: () => {
      state.recordOutsideCall(path);
      return [];
    },
    policy: 'write',
  };
}
