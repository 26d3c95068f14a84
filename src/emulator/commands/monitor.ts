/**
 * `POST /interface/ethernet/monitor {"numbers":"ether1","once":""}`: one row per port with the
 * link `status` and, while linked, the negotiated `rate` (`1Gbps`, an enum kept as text; MikLink
 * 7.20.5). Only `once` is emulated: without it the console monitors until interrupted.
 */
import { badRequest, unknownParameter } from '../rest/errors.js';
import type { JsonReply } from '../rest/json-out.js';
import { asText } from '../rest/values.js';
import type { CommandContext } from './types.js';
import { checkKnown } from './types.js';

const KNOWN = new Set(['numbers', '.id', 'once', '.proplist']);

export function monitorEthernet({ state, params }: CommandContext): JsonReply {
  checkKnown(params, KNOWN, unknownParameter);
  const raw = params.get('numbers') ?? params.get('.id');
  if (raw === undefined) throw badRequest('missing =numbers=');
  if (!params.has('once')) throw badRequest('monitor without once never ends; the emulator needs =once=');
  const menu = state.ethernetMenu;
  const now = state.now();
  return asText('numbers', raw)
    .split(',')
    .map((ref) => {
      const id = menu.find(ref.trim());
      const port = menu.ports().find((p) => p.id === id);
      if (port === undefined) throw badRequest('no such item');
      return menu.monitor(port, now);
    });
}
