/**
 * The console menu tree of one router: directories hold a menu (records), commands, or both.
 * Menus listed in the router's `missingMenus` are left out, so they answer like a router
 * without them (400 no such command or directory).
 */
import { bandwidthTest } from '../commands/bandwidth.js';
import { changePassword } from '../commands/password.js';
import { ping } from '../commands/ping.js';
import type { CommandNode } from '../commands/types.js';
import type { Menu } from '../menus/types.js';
import type { RouterState } from '../state/router-state.js';

export interface TreeNode {
  readonly path: string;
  readonly children: Map<string, TreeNode>;
  readonly menu?: Menu;
  readonly command?: CommandNode;
}

export function buildTree(state: RouterState): TreeNode {
  const root: TreeNode = { path: '', children: new Map() };
  const put = (path: string, content: { menu?: Menu; command?: CommandNode } = {}): void => {
    if (state.missingMenus.has(path)) return;
    const words = path.split('/');
    let node = root;
    for (let i = 0; i < words.length - 1; i++) {
      const next = node.children.get(words[i] ?? '');
      if (next === undefined) return; // the parent is missing: so is this
      node = next;
    }
    node.children.set(words[words.length - 1] ?? '', { path, children: new Map(), ...content });
  };
  const pingNode: CommandNode = { run: ping, policy: 'test' };
  put('ping', { command: pingNode });
  put('password', { command: { run: changePassword, policy: 'password' } });
  put('interface');
  put('interface/wireguard', { menu: state.wireguard });
  put('interface/wireguard/peers', { menu: state.peers });
  put('ip');
  put('ip/address', { menu: state.addresses });
  put('ip/route', { menu: state.routes });
  put('ip/firewall');
  put('ip/firewall/filter', { menu: state.filter });
  put('system');
  put('system/resource', { menu: state.resource });
  put('system/identity', { menu: state.identity });
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
