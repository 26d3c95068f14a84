/**
 * A metric family and its label contract. A family declares its labels (after `router`) in exposition order;
 * the only way to get label text a sample accepts is seriesLabels (and SampleSet.addExtended for a family whose
 * labels extend another's), which take the values in that declared order, typed as a tuple of the family's
 * length. So a collector cannot put labels in another order, forget one, or hand one family's labels to another
 * of a different shape: the compiler refuses it.
 * Families are declared beside their collector (src/collectors/*.contract.ts); metrics/families.ts orders them.
 */
import { openMetricsFamilyName, unitOf, type Unit } from './metadata.js';
import { escapeGivenLabelValue, escapeLabelValue, labelPair } from './text.js';

/** `info`: a gauge of 1 whose labels carry text (OpenMetrics' info type; a gauge in text 0.0.4). */
export type FamilyType = 'gauge' | 'counter' | 'info';

export interface Family<Labels extends readonly string[] = readonly string[]> {
  readonly name: string;
  readonly type: FamilyType;
  readonly help: string;
  /** The unit its name ends in ('' for none), stated in OpenMetrics' `# UNIT`. */
  readonly unit: Unit | '';
  /** Labels besides `router`, in exposition order: the order seriesLabels writes them in. */
  readonly labels: Labels;
  /** Exposed right after this family rather than in its collector's place (keeps related series together). */
  readonly after: Family | undefined;
  /** `,name="` for each of `labels`, made once: what a series' label text puts before each value. */
  readonly openings: { readonly [Index in keyof Labels]: string };
  /** Position in the exposition; set once by metrics/families.ts when it lays the families out. */
  index: number;
}

export function defineFamily<const Labels extends readonly string[]>(
  name: string,
  type: FamilyType,
  labels: Labels,
  help: string,
  after?: Family,
): Family<Labels> {
  // The unit follows from the name, so that a new family cannot state one its name does not end in.
  const openings = labels.map((label) => `,${label}="`) as unknown as Family<Labels>['openings'];
  return { name, type, help, unit: unitOf(openMetricsFamilyName(name, type), type), labels, after, openings, index: -1 };
}

declare const carries: unique symbol;

/** Escaped label text without braces (`router="hq",interface="wg0"`) holding exactly `Labels` after `router`. */
export type SeriesLabels<Labels extends readonly string[]> = string & { readonly [carries]: Labels };

/**
 * `router="<name>"` and the router's own `labels:` from the config (`router="hq",rack="r1",site="ams"`): the
 * labels of a family with none of its own, and the start of every series of that router.
 */
export type RouterLabel = SeriesLabels<readonly []>;

/** One value per label, in the family's order. */
export type LabelValues<Labels extends readonly string[]> = { readonly [Index in keyof Labels]: string };

/**
 * The router label, escaped once: the one place it is built. The router's configured `labels` (names checked
 * at config load: valid, and none the exporter uses itself) follow `router` sorted by name, so a series keeps
 * one identity whatever order the config lists them in, and every family of the router carries them in the
 * same place without any collector knowing about them.
 */
export function routerLabel(name: string, labels: Readonly<Record<string, string>> = {}, typed = false): RouterLabel {
  // A discovered target's name (`typed`: what its /probe client typed) is written as given, never scrubbed (text.ts
  // says why); a configured one is scrubbed as every other value, in case a password was pasted where it belongs.
  let text = typed ? `router="${escapeGivenLabelValue(name)}"` : labelPair('router', name);
  for (const key of Object.keys(labels).sort()) text += `,${labelPair(key, labels[key] as string)}`;
  return text as RouterLabel;
}

/** The labels of one series of `family`: the router's, then `values` under the family's label names. */
export function seriesLabels<const Labels extends readonly string[]>(
  family: Family<Labels>,
  router: RouterLabel,
  values: LabelValues<Labels>,
): SeriesLabels<Labels> {
  if (values.length === 0) return router as string as SeriesLabels<Labels>;
  // Joined from its parts in one go rather than added up pair by pair: one flat string per series (a collection
  // makes one per peer), where the additions made a string per pair and per addition, and the result was copied
  // flat again when first encoded. The parts go into one array kept for the purpose (join keeps none of it).
  labelParts[0] = router;
  let at = 1;
  for (let index = 0; index < values.length; index++) {
    labelParts[at++] = family.openings[index] as string;
    labelParts[at++] = escapeLabelValue(values[index] as string);
    labelParts[at++] = '"';
  }
  labelParts.length = at;
  return labelParts.join('') as SeriesLabels<Labels>;
}

/** seriesLabels' parts, reused from series to series. */
const labelParts: string[] = [];
