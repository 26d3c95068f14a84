/**
 * How large V8 lets its young generation grow. Node 20 lets each of its two semi-spaces grow to 16 MiB and Node 22
 * and later to 64 MiB, and both keep that committed between collections, although what a collection cycle leaves
 * in it is a few MB. Measured with `npm run bench` on Node 20 (docs/performance.md, twenty-third round), 8 MiB
 * semi-spaces took 2,000 small routers from 317–328 to 286–306 MB median RSS for about the same collection CPU,
 * and 100 routers × 1,000 peers from 276–277 to 242–262 MB as Prometheus scrapes for 0.5–0.8 s more per 30 s
 * cycle (young collections come twice as often, and a large reply's objects live through more of them). 4 MiB
 * saved ~9 MB more at fleet shape for 37 % more CPU (eighteenth round). On Node 24 it held 8 MiB but did not
 * replace the option: 433 MB at 2,000 small routers against 364 with `--max-semi-space-size=4`, which the image
 * and the systemd unit keep setting (V8 there sizes more of the heap by the young generation's largest size).
 *
 * `--max-semi-space-size` is read once, when V8 sets up its heap, so the daemon cannot set it for itself; but V8
 * reads `--semi-space-growth-factor` each time it grows the young generation. The daemon lets it grow by V8's
 * factor of 2 until a semi-space holds SEMI_SPACE_MIB, then by 1 (not at all), and by 2 again when V8 has shrunk
 * it (it does, when the program allocates little). An operator's own young-generation option, on the command line
 * or in NODE_OPTIONS (the Docker image's `--max-semi-space-size=4`), is left alone.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export const SEMI_SPACE_MIB = 8;

/** V8's own growth factor (its default on Node 20 and 24), given back when a semi-space is below the cap. */
const V8_GROWTH_FACTOR = 2;

/**
 * Options that size or shape the young generation, in either spelling: the semi-space's bounds and growth, Node 24's
 * cap on the scavenger's new space, and its other young-generation collector (`--minor-ms` and its options), whose
 * new space grows by rules of its own.
 */
const OPTION =
  /^--(?:(?:max|min)[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|scavenger[-_]max[-_]new[-_]space[-_]capacity[-_]mb|minor[-_]ms(?:[-_][a-z0-9_-]*)?)(?:=|$)/;

const MIB = 1024 * 1024;

/**
 * A semi-space's capacity: what the young generation's allocation area holds, used and free. The space's
 * committed size would halve while V8 has its second semi-space given back, and read as room to grow.
 */
function semiSpaceBytes(): number {
  const space = getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space');
  return space === undefined ? 0 : space.space_used_size + space.space_available_size;
}

/**
 * NODE_OPTIONS split as Node splits it: at spaces (not other white space), except inside double quotes, where a
 * backslash takes the next character as it is (`"--max-semi-space-size=16"` is an option Node applies).
 */
export function nodeOptionWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoted = false;
  let started = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (quoted && char === '\\' && at + 1 < text.length) {
      word += text[++at] as string;
    } else if (char === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && char === ' ') {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

/** Whether node was started with a young-generation option, on its command line or in NODE_OPTIONS. */
export function youngGenerationChosen(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): boolean {
  const given = [...execArgv, ...nodeOptionWords(nodeOptions ?? '')];
  return given.some((argument) => OPTION.test(argument));
}

/**
 * The cap is the process's, as V8's flags are: daemons that overlap in one process (tests share one) hold it
 * together, and the last to stop gives V8 its own growth back.
 */
let holders = 0;
let observer: PerformanceObserver | undefined;
let factor = V8_GROWTH_FACTOR;

/** Whether a cap is on in this process (for tests). */
export function youngGenerationCapped(): boolean {
  return holders > 0;
}

export interface YoungGenerationCap {
  /** Lets go of the cap (once; later calls do nothing): the last holder stops watching and gives V8 its growth back. */
  stop(): void;
}

/**
 * After a collection: grow by V8's factor while a semi-space is under the cap, not at all from it on. A capacity is
 * a whole number of 256 KiB pages less their headers: 8 MiB reads as ~7.9, the step below it as ~3.9, so anything
 * past three quarters of the cap is the cap. Best effort: V8 may grow twice within one long synchronous stretch of
 * work before this runs (a single slice keeping tens of MB alive as the young generation starts small); the factor
 * then stays 1, and the space is as large as V8 made it until V8 shrinks it, as it does when the program allocates
 * little. The daemon's work comes in slices, so this runs between its growth steps.
 */
function follow(): void {
  const wanted = semiSpaceBytes() > SEMI_SPACE_MIB * MIB * 0.75 ? 1 : V8_GROWTH_FACTOR;
  if (wanted === factor) return;
  factor = wanted;
  setFlagsFromString(`--semi-space-growth-factor=${String(factor)}`);
}

/**
 * Caps V8's semi-spaces at SEMI_SPACE_MIB from now on, unless node was started with a young-generation option
 * (then returns undefined).
 */
export function capYoungGeneration(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): YoungGenerationCap | undefined {
  if (youngGenerationChosen(execArgv, nodeOptions)) return undefined;
  holders++;
  if (observer === undefined) {
    observer = new PerformanceObserver(follow);
    observer.observe({ entryTypes: ['gc'] });
    follow();
  }
  let held = true;
  return {
    stop() {
      if (!held) return;
      held = false;
      holders--;
      if (holders > 0) return;
      observer?.disconnect();
      observer = undefined;
      if (factor !== V8_GROWTH_FACTOR) setFlagsFromString(`--semi-space-growth-factor=${String(V8_GROWTH_FACTOR)}`);
      factor = V8_GROWTH_FACTOR;
    },
  };
}
