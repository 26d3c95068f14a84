/**
 * Shape checks for RouterOS replies: validated once, at the edge, so collectors only ever see
 * flat records of strings.
 */
import { RouterOsError } from './errors.js';
import { shownFieldName } from './shown-text.js';
import { finish, type Steps } from '../util/slices.js';

/** One RouterOS record: every value a string (spec §2.1); absent keys mean unset. */
export type RouterRecord = Readonly<Record<string, string>>;

/** What the operator can do about a reply of an unexpected shape. */
const SHAPE_HINT = 'the router answered in a shape this exporter does not know: report it with the RouterOS version';

/**
 * Fields that name something (an interface, a peer's key, a chain, a table): the exporter keys maps and sets by
 * them. RouterOS names are tens of characters; V8 hashes a string of more than 16,383 characters by its length
 * alone, so names that long which differ only near their end all collide, and a map of 2,000 of them took 3.4 s
 * to build (a hostile-router hunt); a rule's `protocol`, looked up as a property name, is interned the same way.
 * Free text and lists (`comment`, `allowed-address`, port lists) are not keys; a comment is read to its start
 * (MAX_COMMENT_CHARS).
 */
const NAME_FIELDS = new Set([
  '.id',
  'name',
  'interface',
  'actual-interface',
  'public-key',
  'chain',
  'jump-target',
  'in-interface',
  'out-interface',
  'in-interface-list',
  'out-interface-list',
  'routing-table',
  'type',
  // Looked up as property names or split whole by the firewall audit.
  'protocol',
  'action',
  'connection-state',
]);

/** The longest name a record may carry in NAME_FIELDS: far above RouterOS's, far below V8's hashing limit. */
export const MAX_NAME_CHARS = 1024;

/**
 * How much of a `comment` is read: its start, as long as a name may be. A comment is free text, but it names a
 * nameless peer and is matched as a name (expect, probe, exclude), and a run keeps it until the next (a router
 * answering 30 peers with comments of 1 MiB kept 30 MB between runs; found by review).
 */
export const MAX_COMMENT_CHARS = MAX_NAME_CHARS;

function toRecord(value: unknown, request: string): RouterRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RouterOsError('ROS_ERR_SHAPE', `${request}: expected a record object, got ${describeJson(value)}; ${SHAPE_HINT}`, { request });
  }
  const object = value as Record<string, unknown>;
  // Real replies hold strings only: checked in place and passed on as they are. Copying every record (100,000
  // per cycle at scale) was a tenth of collection CPU and most of its short-lived garbage.
  let copy = false;
  for (const key in object) {
    const field = object[key];
    if (typeof field !== 'string') copy = true;
    else if (field.length > MAX_NAME_CHARS) {
      if (NAME_FIELDS.has(key)) throw longName(key, request);
      if (key === 'comment') object[key] = commentStart(field);
    }
  }
  return copy ? normalised(object, request) : (object as RouterRecord);
}

/**
 * A long comment's first MAX_COMMENT_CHARS characters (not splitting a surrogate pair), as a string of its own: a
 * slice of a long string is a view that keeps the whole alive in V8, and a parse makes a fresh one.
 */
function commentStart(comment: string): string {
  const end = /[\uD800-\uDBFF]/.test(comment.charAt(MAX_COMMENT_CHARS - 1)) ? MAX_COMMENT_CHARS - 1 : MAX_COMMENT_CHARS;
  return JSON.parse(JSON.stringify(comment.slice(0, end))) as string;
}

function longName(key: string, request: string): RouterOsError {
  return new RouterOsError(
    'ROS_ERR_SHAPE',
    `${request}: field ${shownFieldName(key)} is a name of more than ${MAX_NAME_CHARS} characters, which RouterOS does not write; check that nothing (a proxy) alters replies on the way`,
    { request },
  );
}

/** A copy with numbers and booleans as strings and nulls left out; anything else is a shape error. */
function normalised(object: Record<string, unknown>, request: string): RouterRecord {
  // Built from entries, so every key stays an own property as JSON.parse made it: `record[key] =` would drop a
  // field called `__proto__` here while a record of strings only (passed on as it is) keeps it.
  const entries: [string, string][] = [];
  for (const [key, field] of Object.entries(object)) {
    if (typeof field === 'string') entries.push([key, field]);
    else if (typeof field === 'number' || typeof field === 'boolean') entries.push([key, String(field)]);
    else if (field !== null) {
      throw new RouterOsError('ROS_ERR_SHAPE', `${request}: field ${shownFieldName(key)} is ${describeJson(field)}, expected a string; ${SHAPE_HINT}`, {
        request,
      });
    }
  }
  return Object.fromEntries(entries);
}

export function asRecordList(value: unknown, request: string): RouterRecord[] {
  return finish(recordListSteps(value, request));
}

/**
 * Records checked between two possible pauses of recordListSteps. A record's check follows its fields, and the
 * parse lets a record hold up to 10,000 values (MAX_RECORD_VALUES): 64 such records are ~10 ms.
 */
const RECORDS_PER_STEP = 64;

/**
 * asRecordList as steps, a pause possible every 64 records: a reply may list up to a million (MAX_RECORDS), or
 * fewer records of thousands of fields each (378 of 10,000 took one task of 0.5 s).
 * The records are checked, and where needed normalised, in place: the list is the one the reply's parse made,
 * which nothing else holds, and a second list of a million records is one more allocation in one go.
 */
export function* recordListSteps(value: unknown, request: string): Steps<RouterRecord[]> {
  if (!Array.isArray(value)) {
    throw new RouterOsError('ROS_ERR_SHAPE', `${request}: expected a list of records, got ${describeJson(value)}; ${SHAPE_HINT}`, { request });
  }
  const list = value as unknown[];
  for (let index = 0; index < list.length; index++) {
    if (index % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    list[index] = toRecord(list[index], request);
  }
  return list as RouterRecord[];
}

/** Singleton menus answer a bare object on 7.x, a one-element list in older manual examples: accept both. */
export function asSingleRecord(value: unknown, request: string): RouterRecord {
  if (Array.isArray(value)) {
    if (value.length !== 1) {
      throw new RouterOsError('ROS_ERR_SHAPE', `${request}: expected one record, got a list of ${value.length}; ${SHAPE_HINT}`, { request });
    }
    return toRecord(value[0], request);
  }
  return toRecord(value, request);
}

/** What a JSON value is, for a message: `null`, `a list`, `an object`, `a string` … */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
