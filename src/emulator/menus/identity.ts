/** `system/identity`: the router's name, settable through `set` (or PATCH on the menu). */
import { unknownParameter } from '../rest/errors.js';
import { asText } from '../rest/values.js';
import type { Params } from '../rest/values.js';
import type { Row } from '../types.js';
import type { SingletonMenu } from './types.js';

export class IdentityMenu implements SingletonMenu {
  readonly kind = 'singleton';

  constructor(public name: string) {}

  row(): Row {
    return { name: this.name };
  }

  set(params: Params): void {
    for (const [key, value] of params) {
      if (key !== 'name') throw unknownParameter(key);
      this.name = asText(key, value);
    }
  }
}
