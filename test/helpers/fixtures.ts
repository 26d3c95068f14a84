/**
 * Reply fixtures by file name: `test/fixtures/recorded/` holds copies of real RouterOS replies (whole, or rows cut
 * from one), `test/fixtures/synthetic/` replies made for a case no capture shows (each file's origin is in the
 * README beside it). A name is looked up in recorded/ first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { asRecordList, asSingleRecord, type RouterRecord } from '../../src/routeros/records.js';

const RECORDED = new URL('../fixtures/recorded/', import.meta.url);
const SYNTHETIC = new URL('../fixtures/synthetic/', import.meta.url);

/** The parsed JSON of a fixture file. */
export function loadFixture(name: string): unknown {
  const recorded = new URL(name, RECORDED);
  return JSON.parse(readFileSync(existsSync(recorded) ? recorded : new URL(name, SYNTHETIC), 'utf8'));
}

export function fixtureList(name: string): RouterRecord[] {
  return asRecordList(loadFixture(name), name);
}

export function fixtureRecord(name: string): RouterRecord {
  return asSingleRecord(loadFixture(name), name);
}
