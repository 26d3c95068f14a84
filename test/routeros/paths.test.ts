/**
 * Menu paths and query strings, which are kept once encoded (collectors ask for the same ones with every request):
 * what comes out is always the encoding of what went in now, whatever was asked before, and a proplist array
 * changed in place between two requests is encoded as it is now.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMenuPath, queryString } from '../../src/routeros/paths.js';

/** The encodings as RouterOS reads them, worked out here without the module's caches. */
function expectedPath(menu: string): string {
  return '/' + menu.split('/').filter((segment) => segment !== '').map(encodeURIComponent).join('/');
}

function expectedQuery(where: Readonly<Record<string, string>> | undefined, names: readonly string[] | undefined): string {
  const parts = Object.entries(where ?? {}).map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  if (names !== undefined && names.length > 0) parts.push(`.proplist=${names.map(encodeURIComponent).join(',')}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', ',', '&', '=', '?', '%', ' ', 'é', '\u0000', '.', '-'), maxLength: 12 });

describe('menu paths and query strings', () => {
  it('encode what they are given now, asked again and again in any order (property)', () => {
    // A few menus and proplists drawn once, then asked for in a random order, some proplists changed in place.
    const asks = fc.record({
      menus: fc.array(text, { minLength: 1, maxLength: 6 }),
      lists: fc.array(fc.array(text, { maxLength: 5 }), { minLength: 1, maxLength: 4 }),
      steps: fc.array(
        fc.record({ menu: fc.nat(), list: fc.nat(), change: fc.option(fc.record({ at: fc.nat(), name: text }), { nil: undefined }), where: fc.option(fc.dictionary(text, text, { maxKeys: 2 }), { nil: undefined }) }),
        { minLength: 1, maxLength: 30 },
      ),
    });
    fc.assert(
      fc.property(asks, ({ menus, lists: drawn, steps }) => {
        // The test's own arrays: changed in place, the drawn ones would change under the shrinker.
        const lists = drawn.map((names) => [...names]);
        for (const step of steps) {
          const menu = menus[step.menu % menus.length] as string;
          const names = lists[step.list % lists.length] as string[];
          if (step.change !== undefined) {
            // In place: the same array, other names (or one more).
            names[step.change.at % (names.length + 1)] = step.change.name;
          }
          expect(encodeMenuPath(menu)).toBe(expectedPath(menu));
          expect(queryString(step.where, names)).toBe(expectedQuery(step.where, names));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('encodes menus past the ones it keeps as well as the first', () => {
    const menus = Array.from({ length: 1_000 }, (_, index) => `ip/route/${index} x`);
    for (const menu of menus) expect(encodeMenuPath(menu)).toBe(expectedPath(menu));
    for (const menu of menus.reverse()) expect(encodeMenuPath(menu)).toBe(expectedPath(menu));
  });
});
