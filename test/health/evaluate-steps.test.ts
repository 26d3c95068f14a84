/**
 * Verdicts in slices: a hub's 75,000 peers took 0.5–0.7 s to judge and word for /health in one task. In steps the
 * evaluation is the same, and it pauses every few hundred interfaces or peers.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRouter, evaluateRouterSteps } from '../../src/health/evaluate.js';
import { evaluateRouters, evaluateRoutersSteps } from '../../src/health/report.js';
import { summarize, summarizeSteps } from '../../src/health/summary.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { finishInSlices } from '../../src/util/slices.js';
import { testRouter } from '../helpers/config.js';
import { peerRecord, setup, SITE_LINKS, systemOk, T0, wireguard } from './snapshots.js';

const INTERFACES = 600;
const PEERS = 20_000;

/** Interfaces up, down and disabled; peers fresh, stale, never, unreadable and with keepalive, spread over them. */
function hub(): { interfaces: RouterRecord[]; peers: RouterRecord[] } {
  const interfaces = Array.from({ length: INTERFACES }, (_, i): RouterRecord => ({
    '.id': `*${i}`,
    name: i === 0 ? 'wg-branch' : `wg${i}`,
    'public-key': `k${i}`,
    'listen-port': String(10_000 + i),
    running: i % 50 === 7 ? 'false' : 'true',
    disabled: i % 97 === 5 ? 'true' : 'false',
  }));
  const peers = Array.from({ length: PEERS }, (_, i) => {
    const handshake = i % 7 === 0 ? undefined : i % 5 === 0 ? '3h' : i % 13 === 0 ? 'soon' : `${i % 90}s`;
    return peerRecord(`p${i}`, handshake, { interface: interfaces[i % INTERFACES]?.name ?? 'wg0', ...(i % 11 === 0 ? { 'persistent-keepalive': '25s' } : {}) });
  });
  return { interfaces, peers };
}

describe('evaluation in steps', () => {
  const router = testRouter({}, { ...SITE_LINKS, collectors: { wireguard_setup: true } });
  const { interfaces, peers } = hub();
  const snapshots = [systemOk(), wireguard(router, interfaces, peers), setup({ interfaces, peers, addresses: [], routes: [], filter: [] })];

  it('judges a hub as one go does, pausing every few hundred interfaces or peers', async () => {
    const whole = evaluateRouter(router, snapshots, T0 + 60_000);
    let pauses = 0;
    const sliced = await finishInSlices(evaluateRouterSteps(router, snapshots, T0 + 60_000), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced).toEqual(whole);
    // Peers judged, peers worded, interfaces and their audits: each loop pauses.
    expect(pauses).toBeGreaterThanOrEqual(2 * Math.floor(PEERS / 256) + 2 * Math.floor(INTERFACES / 256));
    // The hub is not a quiet one: every kind of problem is in it, worst first.
    expect(whole.health.status).toBe('critical');
    expect(whole.health.peers).toHaveLength(PEERS);
    const statuses = whole.problems.map((problem) => problem.status);
    expect(statuses.indexOf('degraded')).toBeGreaterThan(statuses.lastIndexOf('critical'));
    expect(new Set(whole.problems.map((problem) => problem.kind))).toEqual(new Set(['interface-down', 'peer-stale', 'peer-never', 'peer-unjudged', 'setup-failed']));
  });

  it('pauses in every pass over a router of many interfaces, the lookup by name included (900,000 were looked up in one task of 1.4 s)', async () => {
    const many = 20_000;
    const names = Array.from({ length: many }, (_, i): RouterRecord => ({ name: `wg${i}`, running: 'true', disabled: 'false', 'listen-port': '13231', 'public-key': `k${i}` }));
    const lots = [systemOk(), wireguard(router, names, [])];
    let pauses = 0;
    const sliced = await finishInSlices(evaluateRouterSteps(router, lots, T0 + 60_000), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced).toEqual(evaluateRouter(router, lots, T0 + 60_000));
    // Judged, then put by name once for the audit and the peers: two passes.
    expect(pauses).toBeGreaterThanOrEqual(2 * Math.floor(many / 256));
  });

  it('the whole report too, across routers', async () => {
    const other = testRouter({ name: 'branch' });
    const store = { snapshots: (name: string) => (name === 'hq' ? snapshots : [systemOk()]) };
    const whole = evaluateRouters([router, other], store, T0 + 60_000);
    expect(await finishInSlices(evaluateRoutersSteps([router, other], store, T0 + 60_000), { budgetMs: 0 })).toEqual(whole);
    expect(whole.report.routers.map((health) => health.name)).toEqual(['hq', 'branch']);
  });

  it('reads every router\'s snapshots before its first pause: a reload or a run landing meanwhile mixes no instants (found by review)', async () => {
    const other = testRouter({ name: 'branch' });
    let paused = false;
    // After the first pause the store has changed: branch dropped by a reload, hq collected again, unanswered.
    const store = { snapshots: (name: string) => (paused ? [] : name === 'hq' ? snapshots : [systemOk()]) };
    const sliced = await finishInSlices(evaluateRoutersSteps([router, other], store, T0 + 60_000), { budgetMs: 0, onPause: () => (paused = true) });
    paused = false;
    expect(sliced).toEqual(evaluateRouters([router, other], store, T0 + 60_000));
    expect(sliced.report.routers.map((health) => health.reasons[0])).toEqual([expect.stringMatching(/^hq\//), 'branch/wireguard: not collected yet: tunnel and peer state unknown']);
  });

  it('summarizes tens of thousands of problems in steps, to the same line', async () => {
    const whole = evaluateRouter(router, snapshots, T0 + 60_000);
    expect(whole.problems.length).toBeGreaterThan(1_000);
    let pauses = 0;
    expect(await finishInSlices(summarizeSteps([whole]), { budgetMs: 0, onPause: () => pauses++ })).toBe(summarize([whole]));
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(whole.problems.length / 256));
    expect(summarize([whole])).toMatch(/^\d+ interfaces not running: .* and \d+ more; \d+ stale peers: /);
  });

  it('gives the event loop back while judging a hub: a timer fires before the report is done', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 1);
    await finishInSlices(evaluateRoutersSteps([router], { snapshots: () => snapshots }, T0 + 60_000));
    order.push('judged');
    expect(order).toEqual(['timer', 'judged']);
  });
});
