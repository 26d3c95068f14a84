/**
 * Which of a reply's rows that name one thing twice is the one exported: the same row whatever order the reply
 * lists them in. Taking the first listed, a pair listed the other way round in the next run made each counter step
 * back to the other row's, a reset Prometheus took for a reboot (interfaces: found by review; WireGuard peers, whose
 * rx and tx flipped by ~500 GB a run: found by a hostile tester). RouterOS lists each thing once; twins are a
 * reply that is not to be believed, and the choice only keeps the figures from moving on their own.
 */
import type { RouterRecord } from '../routeros/records.js';
import type { Steps } from '../util/slices.js';

/** How a menu's rows are told apart: what names a row beyond its key, and its two traffic counters (a menu of sensors has none). */
export interface RowOrder {
  readonly identityKeys: readonly string[];
  readonly trafficKeys?: readonly [string, string];
}

/** A `.id` as a number (`*1A` is 26), for ordering rows; Infinity when it is not one RouterOS writes. */
function idOrder(record: RouterRecord): number {
  const match = /^\*([0-9A-Fa-f]{1,12})$/.exec(record['.id'] ?? '');
  return match === null ? Number.POSITIVE_INFINITY : Number.parseInt(match[1] as string, 16);
}

/**
 * Whether row `a` is exported before its twin `b`: the lower `.id`; rows with the same `.id`, or none RouterOS
 * writes, by what names them, then by the larger traffic, so the choice never follows the reply's order. Not by
 * their whole text: that holds the counters, and two twins that both grew swapped places (found by review).
 */
function before(a: RouterRecord, b: RouterRecord, order: RowOrder, textOf: (record: RouterRecord) => string): boolean {
  const [x, y] = [idOrder(a), idOrder(b)];
  if (x !== y) return x < y;
  for (const key of order.identityKeys) {
    const [p, q] = [a[key] ?? '', b[key] ?? ''];
    if (p !== q) return p < q;
  }
  // Then by their traffic in all: rows alike in every name are a hostile reply's, and no choice between them holds
  // across runs. Last, by their whole text: within a run at least, never by the reply's order (a generator found
  // rows alike in all of the above that differed in a packet count).
  // A counter that is not a number counts as less than any: NaN compares false both ways, and the reply's order chose
  // (found by review).
  if (order.trafficKeys !== undefined) {
    const [rx, tx] = order.trafficKeys;
    const traffic = (record: RouterRecord): number => {
      const total = Number(record[rx] ?? 0) + Number(record[tx] ?? 0);
      return Number.isFinite(total) ? total : -1;
    };
    if (traffic(a) !== traffic(b)) return traffic(a) > traffic(b);
  }
  return textOf(a) < textOf(b);
}

/**
 * Each row's text (its fields in one order whatever order the reply wrote them in), made once per row: the row
 * kept so far is compared with every twin after it, and a hostile reply of one long row and thousands of twins
 * had it written out again each time (7 s of CPU for a 1 MB reply, found by review). Once per row, the work is
 * bounded by the reply's size.
 */
function rowTexts(): (record: RouterRecord) => string {
  const texts = new Map<RouterRecord, string>();
  return (record) => {
    let text = texts.get(record);
    if (text === undefined) {
      text = JSON.stringify(Object.keys(record).sort().map((key) => [key, record[key]]));
      texts.set(record, text);
    }
    return text;
  };
}

/**
 * The row of each key (`keyOf`: what the row is exported as; undefined for a row not exported) when some key is
 * listed more than once, and how many rows repeat another's; undefined when none does (every row is the one).
 */
export function* chosenTwinRowsSteps(
  records: readonly RouterRecord[],
  keyOf: (record: RouterRecord, index: number) => string | undefined,
  order: RowOrder,
  rowsPerStep: number,
): Steps<{ rows: Set<RouterRecord>; repeats: number } | undefined> {
  const byKey = new Map<string, RouterRecord>();
  const textOf = rowTexts();
  let repeats = 0;
  for (let index = 0; index < records.length; index++) {
    if (index % rowsPerStep === rowsPerStep - 1) yield;
    const record = records[index] as RouterRecord;
    const key = keyOf(record, index);
    if (key === undefined) continue;
    const other = byKey.get(key);
    if (other === undefined) {
      byKey.set(key, record);
      continue;
    }
    repeats++;
    if (before(record, other, order, textOf)) byKey.set(key, record);
  }
  return repeats === 0 ? undefined : { rows: new Set(byKey.values()), repeats };
}
