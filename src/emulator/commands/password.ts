/** `/password`: changes the password of the user making the request. */
import { badRequest, unknownParameter } from '../rest/errors.js';
import { asText } from '../rest/values.js';
import { checkKnown } from './types.js';
import type { CommandContext } from './types.js';

const PARAMS = new Set(['old-password', 'new-password', 'confirm-new-password']);

export function changePassword(ctx: CommandContext): never[] {
  checkKnown(ctx.params, PARAMS, unknownParameter);
  const text = (name: string): string => {
    const v = ctx.params.get(name);
    if (v === undefined) throw badRequest(`missing =${name}=`);
    return asText(name, v);
  };
  const oldPassword = text('old-password');
  const next = text('new-password');
  if (next !== text('confirm-new-password')) throw badRequest('new passwords do not match');
  if (oldPassword !== ctx.user.password) throw badRequest('old password is not valid');
  ctx.user.password = next;
  return [];
}
