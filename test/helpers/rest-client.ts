/**
 * A test-only RouterOS REST client: the exporter's read-only `RouterOsClient` plus the write verbs and the
 * `print` form that tests use to change an emulated router or exercise more of the transport. Production
 * never writes to a router, so these verbs do not ship in src/; they go through the base class's one
 * `request` path, so what a test sees is what the exporter's transport does.
 */
import { RouterOsClient, type RequestOptions } from '../../src/routeros/client.js';
import { encodeMenuPath, encodeRecordId } from '../../src/routeros/paths.js';
import { asRecordList, asSingleRecord, type RouterRecord } from '../../src/routeros/records.js';

export interface PrintOptions extends RequestOptions {
  proplist?: readonly string[];
  /** API query stack words, e.g. ['type=ether', 'type=vlan', '#|']. */
  query?: readonly string[];
}

export class TestRestClient extends RouterOsClient {
  /** GET /<menu>/<id>: one record, by `.id` (`*1A`) or by name. */
  async get(menu: string, id: string, options: RequestOptions = {}): Promise<RouterRecord> {
    const { value, request } = await this.request('GET', recordPath(menu, id), undefined, options);
    return asSingleRecord(value, request);
  }

  /** PUT /<menu>: creates one record and returns it whole. */
  async create(menu: string, properties: Readonly<Record<string, string>>, options: RequestOptions = {}): Promise<RouterRecord> {
    const { value, request } = await this.request('PUT', encodeMenuPath(menu), properties, options);
    return asSingleRecord(value, request);
  }

  /** PATCH /<menu>/<id>: changes properties and returns the record whole. */
  async update(menu: string, id: string, properties: Readonly<Record<string, string>>, options: RequestOptions = {}): Promise<RouterRecord> {
    const { value, request } = await this.request('PATCH', recordPath(menu, id), properties, options);
    return asSingleRecord(value, request);
  }

  /** DELETE /<menu>/<id>. */
  async remove(menu: string, id: string, options: RequestOptions = {}): Promise<void> {
    await this.request('DELETE', recordPath(menu, id), undefined, options);
  }

  /** POST /<menu>/print with `.proplist` and `.query` (spec §4.2). */
  async print(menu: string, options: PrintOptions = {}): Promise<RouterRecord[]> {
    const body: Record<string, unknown> = {};
    if (options.proplist !== undefined) body['.proplist'] = options.proplist.join(',');
    if (options.query !== undefined) body['.query'] = [...options.query];
    const { value, request } = await this.request('POST', `${encodeMenuPath(menu)}/print`, body, options);
    return asRecordList(value, request);
  }
}

function recordPath(menu: string, id: string): string {
  return `${encodeMenuPath(menu)}/${encodeRecordId(id)}`;
}
