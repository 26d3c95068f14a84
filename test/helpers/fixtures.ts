import { readFileSync } from 'node:fs';
import { asRecordList, asSingleRecord, type RouterRecord } from '../../src/routeros/records.js';

const dir = new URL('../fixtures/recorded/', import.meta.url);

export function recordedList(name: string): RouterRecord[] {
  return asRecordList(JSON.parse(readFileSync(new URL(name, dir), 'utf8')), name);
}

export function recordedRecord(name: string): RouterRecord {
  return asSingleRecord(JSON.parse(readFileSync(new URL(name, dir), 'utf8')), name);
}
