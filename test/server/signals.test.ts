/**
 * The daemon's signals while it stops (src/cli/daemon.ts handleSignals), in-process: a SIGHUP or a second SIGTERM
 * or SIGINT during the shutdown does nothing. Before, the SIGHUP reloaded what was being stopped (and logged a
 * success), and a second SIGTERM, with its listener gone, ended the process by the signal (no exit code, the
 * demo's cleanup skipped). Signals are emitted on `process` rather than sent: sending them to a process that
 * is exiting races its exit.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { handleSignals, type Daemon } from '../../src/cli/daemon.js';
import { holdReloadsWhileStarting } from '../../src/cli/starting-signals.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));

afterEach(() => {
  // Only the listeners this test added go.
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.includes(listener)) process.off(signal, listener);
  }
});

describe('signals while the daemon starts and stops', () => {
  it('a SIGHUP, a second SIGTERM and a SIGINT during the shutdown are ignored, and listeners stay for them', async () => {
    let shutdowns = 0;
    let reloads = 0;
    let finish: () => void = () => undefined;
    const daemon = {
      shutdown: () => {
        shutdowns++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      app: { reload: () => (reloads++, Promise.resolve({ ok: true as const })) },
    } as unknown as Daemon;
    const stopped = handleSignals(daemon, pino({ level: 'silent' }));
    process.emit('SIGHUP');
    expect(reloads).toBe(1);
    process.emit('SIGTERM');
    process.emit('SIGHUP');
    process.emit('SIGTERM');
    process.emit('SIGINT');
    expect([shutdowns, reloads]).toEqual([1, 1]);
    finish();
    await stopped;
    // Still listened to: a signal in the process's last moments must not end it by its default action.
    for (const signal of SIGNALS) expect(process.listenerCount(signal)).toBeGreaterThan(before.get(signal)?.length ?? 0);
    process.emit('SIGHUP');
    expect(reloads).toBe(1);
  });

  it('a SIGHUP while the daemon starts is listened for, and reloads once it is up (without a listener it ended the process)', async () => {
    const starting = holdReloadsWhileStarting();
    expect(process.listenerCount('SIGHUP')).toBe((before.get('SIGHUP')?.length ?? 0) + 1);
    process.emit('SIGHUP');
    process.emit('SIGHUP');
    let reloads = 0;
    const lines: string[] = [];
    const daemon = {
      shutdown: () => Promise.resolve(),
      app: { reload: () => (reloads++, Promise.resolve({ ok: true as const })) },
    } as unknown as Daemon;
    const stopped = handleSignals(daemon, pino({ level: 'info' }, { write: (line: string) => lines.push(line) }), starting);
    // One reload for the ones held; the early listener is gone, the daemon's own is on.
    expect(reloads).toBe(1);
    expect(lines.join('')).toContain('SIGHUP while starting: reloading configuration');
    expect(process.listenerCount('SIGHUP')).toBe((before.get('SIGHUP')?.length ?? 0) + 1);
    process.emit('SIGHUP');
    expect(reloads).toBe(2);
    process.emit('SIGTERM');
    await stopped;
  });

  it('a start without a SIGHUP reloads nothing', async () => {
    const starting = holdReloadsWhileStarting();
    let reloads = 0;
    const daemon = { shutdown: () => Promise.resolve(), app: { reload: () => (reloads++, Promise.resolve({ ok: true as const })) } } as unknown as Daemon;
    const stopped = handleSignals(daemon, pino({ level: 'silent' }), starting);
    expect(reloads).toBe(0);
    process.emit('SIGTERM');
    await stopped;
  });
});
