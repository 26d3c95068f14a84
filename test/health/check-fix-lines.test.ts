/**
 * A set-up check's fix in `check`'s output is a RouterOS command an operator pastes into a console: shown whole and
 * as /health has it, or not at all. Each detail line is cut at 1,000 bytes (the 8 KiB Nagios keeps) and made plain
 * (`|` becomes `/`, control characters spaces), and the fix rode inside the line: an interface named with a few
 * hundred characters cut its fix short (` …`), and one named `wg|a` had it add an address to `wg/a` (found by
 * review), as did a lone surrogate (U+FFFD in UTF-8) in it. /health leaves out a fix it
 * cannot show whole (SETUP_FIX_LIMIT); check now does the same for its line.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck } from '../../src/health/nagios.js';
import { testRouter } from '../helpers/config.js';
import { T0, WG_UP, setup, systemOk } from './snapshots.js';

const router = testRouter({ collectors: { wireguard: false, wireguard_setup: true } });

/** check's output and /health's fixes for a router whose one interface, named `name`, fails its set-up checks. */
function checkOf(name: string, comment = 'defconf: drop all not coming from LAN'): { text: string; fixes: string[] } {
  const filter = [{ '.id': '*5', chain: 'input', action: 'drop', 'in-interface-list': '!LAN', comment }];
  const snapshot = setup({ interfaces: [{ ...WG_UP, name }], peers: [], addresses: [], routes: [], filter } as never, T0);
  const evaluated = evaluateRouters([router], { snapshots: () => [systemOk(), snapshot] }, T0 + 1_000);
  const fixes = evaluated.report.routers.flatMap((health) => health.interfaces.flatMap((entry) => entry.setup ?? [])).flatMap((check) => (check.fix === undefined ? [] : [check.fix.replaceAll('\n', ' ; ')]));
  return { text: formatCheck(evaluated, [router]).text, fixes };
}

/** Every `Fix:` of the output, to the end of its line. */
function shownFixes(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const at = line.indexOf(' Fix: ');
    return at < 0 ? [] : [line.slice(at + ' Fix: '.length)];
  });
}

describe("set-up fixes in check's output", () => {
  it('an ordinary name: the fix shown whole, as /health has it', () => {
    const { text, fixes } = checkOf('wg-branch');
    expect(fixes.length).toBeGreaterThan(0);
    expect(shownFixes(text).sort()).toEqual([...fixes].sort());
  });

  it('a name of 300 characters: no fix cut short (it was cut at the line\'s 1,000 bytes, " …"); the line says where it is', () => {
    const { text, fixes } = checkOf(`wg-${'x'.repeat(300)}`);
    expect(fixes.length).toBeGreaterThan(0);
    for (const shown of shownFixes(text)) expect(fixes).toContain(shown);
    expect(text).toContain('/health?router=hq has the fix');
  });

  it('a name holding `|` (which the plugin output cannot carry): no fix naming another interface (`wg/a`)', () => {
    const { text, fixes } = checkOf('wg|a');
    expect(fixes.length).toBeGreaterThan(0);
    for (const shown of shownFixes(text)) expect(fixes).toContain(shown);
    expect(text).not.toContain('"wg/a"');
    expect(text).toContain('/health?router=hq has the fix');
  });

  it('a name holding a lone surrogate (U+FFFD in the UTF-8 written, where /health has the character): no fix naming another interface (found by the generator); a bidi control, which the fix writes escaped, keeps its fix', () => {
    const surrogate = checkOf('wg\ud800a');
    // No fix holds the name any more (no bytes of the router's stand for a lone surrogate: setup-fixes.ts); the input
    // accept, which names no interface, is offered with a comment without it, and shown whole.
    expect(surrogate.fixes.length).toBeGreaterThan(0);
    for (const fix of surrogate.fixes) expect(fix).not.toMatch(/[\ud800-\udfff]/);
    // As Nagios reads it: the UTF-8 written.
    expect(shownFixes(Buffer.from(surrogate.text).toString()).sort()).toEqual([...surrogate.fixes].sort());
    const bidi = checkOf('wg\u2066a');
    expect(shownFixes(bidi.text).sort()).toEqual([...bidi.fixes].sort());
  });
});
