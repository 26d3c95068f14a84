/**
 * The interface collector: mapping of the three recorded /interface shapes (7.16 hAP, 7.23.7 CHR, a field-reduced
 * 7.x list), range rules, the cardinality filter (`interfaces:` config) and the job's requests.
 */
import fc from 'fast-check';
import { RouterOsError } from '../../src/routeros/errors.js';
import { describe, expect, it } from 'vitest';
import { INTERFACE_PROPLIST, interfaceCollector, linkRateBits, mapInterfaces, mapLinkRates, mapLinkRatesSteps, MAX_MONITORED_PORTS } from '../../src/collectors/interface.js';
import { keepsInterface } from '../../src/collectors/interface-filter.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { routerLabel } from '../../src/metrics/family.js';
import { fixtureList } from '../helpers/fixtures.js';
import { testRouter } from '../helpers/config.js';
import { BASE, problemsOf } from '../config/helpers.js';
import { sampleText } from './sample-text.js';
import { jobFingerprint } from '../../src/scheduler/definition.js';
import { shuffledBy } from '../helpers/shuffle.js';
import { cpuTimed } from '../helpers/cpu-time.js';

const ROUTER = routerLabel('hq');
const DEFAULT_FILTER = testRouter().interfaces;

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

describe('an interface name of megabytes', () => {
  it('is written shortened, once per line, in milliseconds (a 20 MB name blocked the loop 1.6 s and held 476 MB)', () => {
    const huge = `wan-${'x'.repeat(20_000_000)}`;
    const { value: out, ms } = cpuTimed(() => sampleText(mapInterfaces([{ name: huge, type: 'ether', running: 'true', 'rx-byte': '1' }, { name: 'ether1', type: 'ether', running: 'true' }], ROUTER, DEFAULT_FILTER).samples));
    expect(ms).toBeLessThan(1_000);
    expect(out.length).toBeLessThan(40_000);
    expect(out).toMatch(/routeros_interface_running\{router="hq",interface="wan-x+…[0-9a-f]{16}",type="ether"\} 1\n/);
    expect(out).toContain('routeros_interface_running{router="hq",interface="ether1",type="ether"} 1\n');
  });
});

describe('interface mapping of recorded replies', () => {
  it('7.16 hAP ac²: 64-bit counters, slave port, and a repeated name exported once', () => {
    const records = fixtureList('interface-7.16-hap.json');
    const result = mapInterfaces([...records, ...records], ROUTER, DEFAULT_FILTER);
    const out = sampleText(result.samples);
    expect(out).toContain('routeros_interface_receive_bytes_total{router="hq",interface="ether1",type="ether"} 194632346152\n');
    expect(out).toContain('routeros_interface_transmit_bytes_total{router="hq",interface="ether1",type="ether"} 15355309685\n');
    expect(out).toContain('routeros_interface_receive_packets_total{router="hq",interface="ether1",type="ether"} 144047662\n');
    expect(out).toContain('routeros_interface_transmit_queue_drops_total{router="hq",interface="ether1",type="ether"} 0\n');
    expect(out).toContain('routeros_interface_link_downs_total{router="hq",interface="ether2",type="ether"} 0\n');
    expect(out).toContain('routeros_interface_running{router="hq",interface="ether2",type="ether"} 0\n');
    expect(out).toContain('routeros_interface_info{router="hq",interface="ether1",type="ether",comment=""} 1\n');
    expect(lines(out).filter((line) => line.startsWith('routeros_interface_info'))).toHaveLength(2);
    expect(result.data).toEqual({ listed: 4, exported: 2 });
    expect(result.problems).toEqual(['interface 2 rows repeat the name and type of another; each is exported from its row with the lowest .id']);
    // Only running ethernet ports are asked for their link rate.
    expect([...result.ethernetUp]).toEqual([['ether1', '*1']]);
  });

  it('a repeated name is exported from its row with the lowest .id, in whatever order the rows come (found by review)', () => {
    const row = (id: string, rx: string) => ({ '.id': id, name: 'ether2', type: 'ether', running: 'true', disabled: 'false', 'rx-byte': rx });
    // Both rows' counters grew between the runs; the reply listed them the other way round the second time.
    const first = sampleText(mapInterfaces([row('*2', '100000'), row('*A', '900000')], ROUTER, DEFAULT_FILTER).samples);
    const second = sampleText(mapInterfaces([row('*A', '900500'), row('*2', '100500')], ROUTER, DEFAULT_FILTER).samples);
    const rx = (out: string) => lines(out).find((line) => line.startsWith('routeros_interface_receive_bytes_total'));
    expect([rx(first), rx(second)]).toEqual([
      'routeros_interface_receive_bytes_total{router="hq",interface="ether2",type="ether"} 100000',
      'routeros_interface_receive_bytes_total{router="hq",interface="ether2",type="ether"} 100500',
    ]);
  });

  it('chooses among twins as written out and as the filter keeps them, and never by the reply\'s order (found by review)', () => {
    const row = (fields: Record<string, string>) => ({ type: 'ether', running: 'true', disabled: 'false', ...fields });
    const rxOf = (rows: Record<string, string>[]): string[] =>
      lines(sampleText(mapInterfaces(rows, ROUTER, DEFAULT_FILTER).samples)).filter((line) => line.startsWith('routeros_interface_receive_bytes_total'));
    const both = (a: Record<string, string>, b: Record<string, string>): void => expect(rxOf([b, a])).toEqual(rxOf([a, b]));
    // Names that differ only where the format cannot carry them are one series.
    both(row({ '.id': '*2', name: 'lan\u0001', 'rx-byte': '100000' }), row({ '.id': '*9', name: 'lan\u0002', 'rx-byte': '900000' }));
    // The same .id twice, or none: still one choice, whatever the order.
    both(row({ '.id': '*2', name: 'ether2', 'rx-byte': '100000' }), row({ '.id': '*2', name: 'ether2', 'rx-byte': '900000' }));
    both(row({ name: 'ether2', 'rx-byte': '100000' }), row({ '.id': 'odd', name: 'ether2', 'rx-byte': '900000' }));
    // A dynamic twin the filter leaves out is no choice: the static row is exported, `dynamic: yes` as `true`.
    for (const dynamic of ['true', 'yes']) {
      expect(rxOf([row({ '.id': '*1', name: 'ppp1', dynamic, 'rx-byte': '5' }), row({ '.id': '*7', name: 'ppp1', 'rx-byte': '7' })])).toEqual([
        'routeros_interface_receive_bytes_total{router="hq",interface="ppp1",type="ether"} 7',
      ]);
    }
    // Twins of one .id that both grew: the same one still exported, not chosen by counters that moved (found by review).
    const runs = [
      [row({ '.id': '*2', name: 'ether2', 'mac-address': 'AA', 'rx-byte': '95' }), row({ '.id': '*2', name: 'ether2', 'mac-address': 'BB', 'rx-byte': '120' })],
      [row({ '.id': '*2', name: 'ether2', 'mac-address': 'AA', 'rx-byte': '100' }), row({ '.id': '*2', name: 'ether2', 'mac-address': 'BB', 'rx-byte': '121' })],
    ];
    expect(runs.map((rows) => rxOf(rows)[0])).toEqual([
      'routeros_interface_receive_bytes_total{router="hq",interface="ether2",type="ether"} 95',
      'routeros_interface_receive_bytes_total{router="hq",interface="ether2",type="ether"} 100',
    ]);
  });

  it('7.23.7 CHR: bridge with mtu auto, loopback, disabled vlan; every property of the menu', () => {
    const result = mapInterfaces(fixtureList('interface-7.23-chr.json'), ROUTER, DEFAULT_FILTER);
    const out = sampleText(result.samples);
    expect(out).toContain('routeros_interface_transmit_bytes_total{router="hq",interface="bridge-lan",type="bridge"} 2627\n');
    expect(out).toContain('routeros_interface_running{router="hq",interface="lo",type="loopback"} 1\n');
    expect(out).toContain('routeros_interface_disabled{router="hq",interface="vlan20-guest",type="vlan"} 1\n');
    expect(out).toContain('routeros_interface_running{router="hq",interface="vlan20-guest",type="vlan"} 0\n');
    const families = new Set(lines(out).map((line) => line.slice(0, line.indexOf('{'))));
    expect([...families].sort()).toEqual(
      [
        'routeros_interface_info',
        'routeros_interface_running',
        'routeros_interface_disabled',
        'routeros_interface_receive_bytes_total',
        'routeros_interface_transmit_bytes_total',
        'routeros_interface_receive_packets_total',
        'routeros_interface_transmit_packets_total',
        'routeros_interface_receive_errors_total',
        'routeros_interface_transmit_errors_total',
        'routeros_interface_receive_drops_total',
        'routeros_interface_transmit_drops_total',
        'routeros_interface_transmit_queue_drops_total',
        'routeros_interface_link_downs_total',
      ].sort(),
    );
    expect(result.problems).toEqual([]);
  });

  it('a field-reduced list: what is there is exported, what is not is left out (not 0)', () => {
    const result = mapInterfaces(fixtureList('interface-7.x-reduced.json'), ROUTER, DEFAULT_FILTER);
    const out = sampleText(result.samples);
    expect(out).toContain('routeros_interface_receive_bytes_total{router="hq",interface="WAN2",type="ether"} 760847150783\n');
    expect(out).not.toContain('packets_total');
    expect(out).not.toContain('link_downs_total');
    expect(result.data).toEqual({ listed: 7, exported: 7 });
    expect(result.problems).toEqual([]);
  });

  it('an empty list is no interface menu of a router: the run fails (parse), never "no interfaces" (found by review)', () => {
    expect(() => mapInterfaces([], ROUTER, DEFAULT_FILTER)).toThrow(expect.objectContaining({ code: 'ROS_ERR_SHAPE' }));
    // A filter that keeps none of a real list is no failure.
    const none = mapInterfaces(fixtureList('interface-7.x-reduced.json'), ROUTER, { ...DEFAULT_FILTER, includeTypes: ['no-such-type'] });
    expect(none.data.exported).toBe(0);
  });

  it('only asks for the proplist it maps, and never for a key the router would have to compute for nothing', () => {
    expect(INTERFACE_PROPLIST).toContain('link-downs');
    expect(INTERFACE_PROPLIST).not.toContain('mac-address');
  });
});

describe('interface range rules', () => {
  it('a negative or non-numeric counter is left out and counted; the rest of the row stands', () => {
    const row: RouterRecord = { name: 'ether1', type: 'ether', running: 'yes please', disabled: 'false', 'rx-byte': '-5', 'tx-byte': '18446744073709551616000', 'link-downs': 'x', 'rx-packet': '3' };
    const result = mapInterfaces([row], ROUTER, DEFAULT_FILTER);
    const out = sampleText(result.samples);
    expect(out).not.toContain('receive_bytes_total');
    expect(out).not.toContain('transmit_bytes_total');
    expect(out).not.toContain('link_downs_total');
    expect(out).not.toContain('routeros_interface_running');
    expect(out).not.toContain('NaN');
    expect(out).toContain('routeros_interface_receive_packets_total{router="hq",interface="ether1",type="ether"} 3\n');
    expect(result.decodeErrors).toBe(4);
    expect(result.problems.join('\n')).toMatch(/interface rx-byte/);
    // A port whose running state is unknown is not asked for its rate.
    expect(result.ethernetUp.size).toBe(0);
  });

  it('link rates: RouterOS enum text to bytes per second; an unknown form is a problem, no series', () => {
    expect(linkRateBits('1Gbps')).toBe('1000000000');
    expect(linkRateBits('2.5Gbps')).toBe('2500000000');
    expect(linkRateBits('10Mbps')).toBe('10000000');
    expect(linkRateBits('fast')).toBeUndefined();
    const samples = new SampleSet();
    const read = mapLinkRates(
      [
        { name: 'ether1', status: 'link-ok', rate: '1Gbps' },
        { name: 'ether2', status: 'link-ok', rate: 'warp 9' },
        { name: 'ether3', status: 'no-link' },
        { name: 'not-asked', status: 'link-ok', rate: '10Gbps' },
        { name: 'ether1', status: 'link-ok', rate: '10Gbps' },
      ],
      new Set(['ether1', 'ether2', 'ether3']),
      ROUTER,
      samples,
    );
    expect(sampleText(samples)).toBe('routeros_interface_link_speed_bytes_per_second{router="hq",interface="ether1",type="ether"} 125000000\n');
    expect(read.errors).toBe(1);
    expect(read.problems[0]).toMatch(/monitor rate/);
  });
});

describe('link rates of ports without a link', () => {
  it('a row whose status is anything but link-ok has no link speed, whatever rate it carries, and is counted (found by a hostile tester)', () => {
    for (const status of ['no-link', 'unknown', '', 'link-OK', 42, null]) {
      const samples = new SampleSet();
      const read = mapLinkRates([{ name: 'ether1', status, rate: '1Gbps' }, { name: 'ether2', status: 'link-ok', rate: '1Gbps' }], new Set(['ether1', 'ether2']), ROUTER, samples);
      expect(sampleText(samples), JSON.stringify(status)).toBe('routeros_interface_link_speed_bytes_per_second{router="hq",interface="ether2",type="ether"} 125000000\n');
      expect(read.errors).toBe(1);
      expect(read.problems[0]).toMatch(/rate given for a port whose status is .*, not link-ok; left out/);
    }
    // A row without a status (none seen from RouterOS) keeps its rate.
    const samples = new SampleSet();
    expect(mapLinkRates([{ name: 'ether1', rate: '1Gbps' }], new Set(['ether1']), ROUTER, samples).errors).toBe(0);
    expect(sampleText(samples)).toContain('125000000');
  });
});

describe('link rates from a monitor reply that is not data', () => {
  it('count a problem, never pass for "no port has a link" (null, text, a number; rows that are no records)', () => {
    for (const reply of [null, 'ok', 42, true, [null], ['ether1'], [[{ name: 'ether1', rate: '1Gbps' }]]]) {
      const samples = new SampleSet();
      const read = mapLinkRates(reply, new Set(['ether1']), ROUTER, samples);
      expect(read.errors, JSON.stringify(reply)).toBeGreaterThan(0);
      expect(read.problems[0]).toMatch(/interface\/ethernet\/monitor reply: /);
      expect(sampleText(samples)).toBe('');
    }
    // Replies of the right kind that name no port asked for are no answer either (found by review).
    for (const reply of [[], {}, { status: 'ok' }, [{ status: 'ok' }], [{ name: 'ether9', rate: '1Gbps' }]]) {
      const read = mapLinkRates(reply, new Set(['ether1', 'ether2']), ROUTER, new SampleSet());
      expect(read.problems, JSON.stringify(reply)).toEqual(['interface/ethernet/monitor reply: 2 of the 2 running ethernet ports asked for are missing']);
    }
    // A rate that is no string is worded by its kind, never written out (a list of millions took seconds).
    const odd = mapLinkRates([{ name: 'ether1', rate: Array.from({ length: 1_000 }, () => 'x') }], new Set(['ether1']), ROUTER, new SampleSet());
    expect(odd.problems).toEqual(['interface/ethernet/monitor rate: not a link rate: a list']);
    // One port's row as an object is data.
    const samples = new SampleSet();
    expect(mapLinkRates({ name: 'ether1', status: 'link-ok', rate: '1Gbps' }, new Set(['ether1']), ROUTER, samples).errors).toBe(0);
    expect(sampleText(samples)).toContain('125000000');
  });
});

describe('interface cardinality filter', () => {
  const rows: RouterRecord[] = [
    { name: 'ether1', type: 'ether', running: 'true', disabled: 'false', 'rx-byte': '1' },
    { name: 'bridge-lan', type: 'bridge', dynamic: 'false', running: 'true', disabled: 'false', 'rx-byte': '1' },
    { name: 'vlan20-guest', type: 'vlan', running: 'true', disabled: 'false', 'rx-byte': '1' },
    { name: 'wg-branches', type: 'wg', running: 'true', disabled: 'false', 'rx-byte': '1' },
    { name: '<pppoe-alice>', type: 'pppoe-in', dynamic: 'true', running: 'true', disabled: 'false', 'rx-byte': '1' },
    { name: '<l2tp-bob>', type: 'l2tp-in', dynamic: 'true', running: 'true', disabled: 'false', 'rx-byte': '1' },
  ];
  const exported = (router: Record<string, unknown>, defaults: Record<string, unknown> = {}): string[] =>
    lines(sampleText(mapInterfaces(rows, ROUTER, testRouter(router, defaults).interfaces).samples))
      .filter((line) => line.startsWith('routeros_interface_info'))
      .map((line) => /interface="([^"]*)"/.exec(line)?.[1] ?? '');

  it('by default keeps every static interface, WireGuard included, and leaves dynamic per-user sessions out', () => {
    expect(exported({})).toEqual(['ether1', 'bridge-lan', 'vlan20-guest', 'wg-branches']);
  });

  it('include_dynamic brings the sessions in', () => {
    expect(exported({ interfaces: { include_dynamic: true } })).toHaveLength(6);
  });

  it('include_types / exclude_types / include_pattern / exclude_pattern (whole-name match), exclude winning', () => {
    expect(exported({ interfaces: { include_types: ['ether', 'wg'] } })).toEqual(['ether1', 'wg-branches']);
    expect(exported({ interfaces: { exclude_types: ['vlan', 'bridge'] } })).toEqual(['ether1', 'wg-branches']);
    expect(exported({ interfaces: { include_pattern: 'ether.*|wg-.*' } })).toEqual(['ether1', 'wg-branches']);
    expect(exported({ interfaces: { exclude_pattern: 'vlan' } })).toHaveLength(4);
    expect(exported({ interfaces: { exclude_pattern: 'vlan.*' } })).toEqual(['ether1', 'bridge-lan', 'wg-branches']);
    expect(exported({ interfaces: { include_types: ['ether', 'wg'], exclude_pattern: 'wg-.*' } })).toEqual(['ether1']);
    // A broad include never lets a dynamic session in by itself.
    expect(exported({ interfaces: { include_types: ['pppoe-in'] } })).toEqual([]);
  });

  it('merges key by key over defaults.interfaces', () => {
    expect(exported({ interfaces: { exclude_pattern: 'wg-.*' } }, { interfaces: { include_types: ['ether', 'wg', 'vlan'] } })).toEqual(['ether1', 'vlan20-guest']);
  });

  it('is linear-time and whole-name, like exclude_peer_pattern', () => {
    const filter = testRouter({ interfaces: { exclude_pattern: '(a+)+b' } }).interfaces;
    const { value: kept, ms } = cpuTimed(() => keepsInterface(filter, { name: 'a'.repeat(5_000), type: 'ether', dynamic: false }));
    expect(kept).toBe(true);
    expect(ms).toBeLessThan(1_000);
  });

  it('refuses what it cannot use, naming the key', () => {
    const messages = problemsOf({
      defaults: BASE.defaults,
      routers: [{ name: 'hq', url: 'https://192.0.2.1', interfaces: { exclude_pattern: '(', include_types: 'ether', include_dynamic: 'yes', exclude: 'x' } }],
    }).map((problem) => `${problem.path}: ${problem.message}`);
    expect(messages.join('\n')).toMatch(/routers\[0\]\.interfaces\.exclude_pattern: "\(" is not a valid regular expression/);
    expect(messages.join('\n')).toMatch(/routers\[0\]\.interfaces\.include_types/);
    expect(messages.join('\n')).toMatch(/routers\[0\]\.interfaces\.include_dynamic: must be true or false/);
    expect(messages.join('\n')).toMatch(/routers\[0\]\.interfaces.*exclude/);
  });
});

/** A client for the interface job: the recorded /interface list, and `run` as given (the monitor's request). */
function listingClient(run: JobContext['client']['run']): JobContext['client'] {
  return {
    list: async () => fixtureList('interface-7.23-chr.json'),
    getSingleton: async () => {
      throw new Error('not expected');
    },
    run,
  };
}

describe('interface job', () => {
  it('is on by default, lists /interface with a .proplist, then monitors the running ethernet ports once, by id', async () => {
    expect(interfaceCollector.defaultEnabled).toBe(true);
    const router = testRouter();
    const [job] = interfaceCollector.jobs(router);
    const calls: { what: string; detail: unknown }[] = [];
    const client: JobContext['client'] = {
      list: async (menu, options) => {
        calls.push({ what: menu, detail: options?.proplist });
        return fixtureList('interface-7.23-chr.json');
      },
      getSingleton: async () => {
        throw new Error('not expected');
      },
      run: async (command, parameters) => {
        calls.push({ what: command, detail: parameters });
        return [
          { name: 'ether1', status: 'link-ok', rate: '1Gbps' },
          { name: 'ether2', status: 'link-ok', rate: '100Mbps' },
        ];
      },
    };
    const result = await job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() });
    expect(calls).toEqual([
      { what: 'interface', detail: INTERFACE_PROPLIST },
      { what: 'interface/ethernet/monitor', detail: { numbers: '*2,*3', once: '' } },
    ]);
    const out = sampleText(result?.samples ?? new SampleSet());
    expect(out).toContain('routeros_interface_link_speed_bytes_per_second{router="hq",interface="ether2",type="ether"} 12500000\n');
    expect(job?.deadlineSeconds).toBe(router.timeoutSeconds * 2);
    expect(job?.schedule).toBe(router.schedules.interface);
    expect(result?.optionalReads).toEqual([{ what: 'the ethernet link rates (interface/ethernet/monitor)' }]);
  });

  it('a link-rate read that fails leaves the rates out and keeps every other series, not the run failed (found by a hostile tester)', async () => {
    const router = testRouter();
    const [job] = interfaceCollector.jobs(router);
    const client = listingClient(async () => {
      throw new RouterOsError('ROS_ERR_HTTP_5XX', 'POST /rest/interface/ethernet/monitor: HTTP 500', { status: 500 });
    });
    const result = await job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() });
    const out = sampleText(result?.samples ?? new SampleSet());
    expect(out).toContain('routeros_interface_receive_bytes_total{router="hq",interface="ether1",type="ether"}');
    expect(out).not.toContain('routeros_interface_link_speed_bytes_per_second');
    // Left out, and said why (the job logs it: scheduler/runner.ts); a run that read them says they answered.
    expect(result?.optionalReads).toEqual([
      { what: 'the ethernet link rates (interface/ethernet/monitor)', failure: { cause: 'ROS_ERR_HTTP_5XX', message: 'POST /rest/interface/ethernet/monitor: HTTP 500' } },
    ]);
    // A stop while the rates are read is a stop.
    const stop = new AbortController();
    const stopping = listingClient(async () => {
      stop.abort(new Error('stopped'));
      throw new RouterOsError('ROS_ERR_ABORTED', 'POST /rest/interface/ethernet/monitor: aborted');
    });
    await expect(job?.run({ router, client: stopping, routerLabel: ROUTER, now: () => 0, signal: stop.signal, memory: new Map() })).rejects.toThrow('aborted');
  });

  it('makes no monitor request when no running ethernet port is exported', async () => {
    const router = testRouter({ interfaces: { exclude_types: ['ether'] } });
    const [job] = interfaceCollector.jobs(router);
    const client = listingClient(async () => {
      throw new Error('not expected');
    });
    const result = await job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() });
    expect(sampleText(result?.samples ?? new SampleSet())).toContain('interface="bridge-lan"');
  });
});

describe('interface job against a router listing more ports than any has', () => {
  it(`asks the link rate of the first ${MAX_MONITORED_PORTS} running ethernet ports only, and says so (300,000 held the event loop 1.3 s)`, async () => {
    const router = testRouter();
    const [job] = interfaceCollector.jobs(router);
    const count = MAX_MONITORED_PORTS + 76;
    const records = Array.from({ length: count }, (_, i) => ({ '.id': `*${i}`, name: `ether${i}`, type: 'ether', running: 'true', disabled: 'false' }));
    let asked: string[] = [];
    const client: JobContext['client'] = {
      list: async () => records,
      getSingleton: async () => {
        throw new Error('not expected');
      },
      run: async (_command, parameters) => {
        asked = String(parameters?.['numbers']).split(',');
        // The router answers for every port it has, asked or not.
        return records.map((record) => ({ name: record.name, status: 'link-ok', rate: '1Gbps' }));
      },
    };
    const result = await job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() });
    expect(asked).toEqual(records.slice(0, MAX_MONITORED_PORTS).map((record) => record['.id']));
    expect(result?.problems).toEqual([`interface ${count} running ethernet ports: the link rate is asked for the first ${MAX_MONITORED_PORTS} only`]);
    expect(result?.decodeErrors).toBe(1);
    const out = sampleText(result?.samples ?? new SampleSet());
    expect(out.match(/^routeros_interface_link_speed_bytes_per_second/gm)).toHaveLength(MAX_MONITORED_PORTS);
    expect(out).toContain(`routeros_interface_running{router="hq",interface="ether${count - 1}",type="ether"} 1\n`);
  });

  it('maps a monitor reply of any length in steps, a pause possible every 1,024 rows', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ name: `ether${i}`, status: 'link-ok', rate: '1Gbps' }));
    const samples = new SampleSet();
    const steps = mapLinkRatesSteps(rows, new Set(['ether1', 'ether9999']), ROUTER, samples);
    let pauses = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) pauses++;
    expect(pauses).toBe(Math.floor(10_000 / 1024));
    expect(step.value.errors).toBe(0);
    expect(sampleText(samples).match(/^routeros_interface_link_speed_bytes_per_second/gm)).toHaveLength(2);
  });
});

describe('interface job on reload', () => {
  const fingerprint = (router: Record<string, unknown>): string => {
    const config = testRouter(router);
    const job = interfaceCollector.jobs(config)[0];
    if (job === undefined) throw new Error('no job');
    return jobFingerprint(config, job);
  };

  it('is replaced when its interfaces: filter changes (the run reads it), and kept otherwise', () => {
    const base = fingerprint({ interfaces: { exclude_pattern: 'vlan.*' } });
    expect(fingerprint({ interfaces: { exclude_pattern: 'vlan.*' } })).toBe(base);
    expect(fingerprint({ interfaces: { exclude_pattern: 'vlan1.*' } })).not.toBe(base);
    expect(fingerprint({ interfaces: { exclude_pattern: 'vlan.*', include_dynamic: true } })).not.toBe(base);
    expect(fingerprint({ interfaces: { exclude_pattern: 'vlan.*', include_types: ['ether'] } })).not.toBe(base);
    expect(fingerprint({ interfaces: { exclude_pattern: 'vlan.*' }, health: { exclude_peers: ['x'] } })).toBe(base);
  });
});

describe('rows that repeat a name (property)', () => {
  it('export the same series whatever order the reply lists them in', () => {
    // Few names, ids and values, so that twins, shared ids, missing ids and equal traffic all come up.
    const row = fc.record(
      {
        '.id': fc.constantFrom('*1', '*2', '*A', 'odd'),
        name: fc.constantFrom('ether1', 'ether2', 'lan\u0001', 'lan\u0002'),
        type: fc.constantFrom('ether', 'vlan'),
        dynamic: fc.constantFrom('true', 'false', 'yes'),
        running: fc.constantFrom('true', 'false'),
        'mac-address': fc.constantFrom('AA', 'BB'),
        // Counters that are not numbers too: NaN compares false both ways (found by review).
        'rx-byte': fc.constantFrom('0', '5', '9000', 'garbage', '1e400'),
        'tx-byte': fc.constantFrom('0', '5', '9000', ''),
        'rx-packet': fc.constantFrom('1', '2'),
      },
      { requiredKeys: ['name', 'type', 'rx-byte', 'tx-byte', 'rx-packet'] },
    );
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), fc.infiniteStream(fc.nat()), (rows, seeds) => {
        const shuffled = shuffledBy(rows, seeds);
        // The same lines: the series of distinct names follow the reply's order, which is no choice between rows.
        const out = (list: RouterRecord[]) => lines(sampleText(mapInterfaces(list, ROUTER, DEFAULT_FILTER).samples)).sort();
        expect(out(shuffled)).toEqual(out(rows));
      }),
      { numRuns: 1000 },
    );
  });
});
