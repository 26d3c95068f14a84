/**
 * A counter window shorter than two of WireGuard's handshake retries (MIN_COUNTER_WINDOW_SECONDS) cannot tell a
 * handshake in flight on a healthy tunnel from a dead link: a reload that replaced the wireguard job (it runs at once),
 * a wall clock set back that re-ran a slot, or a schedule faster than 11 s made such windows, and a healthy link read
 * `down` for a run, or a dead one `idle` (a recovery logged, paged again a run later). Found by review (stop 71's
 * note). The daemon's runs carry the movement of the last window long enough across a shorter one, and the next
 * window runs from where that one ended; `check` (minimum 0) still judges every window as it is.
 */
import { describe, expect, it } from 'vitest';
import { MIN_COUNTER_WINDOW_SECONDS } from '../../src/analysis/liveness.js';
import { INITIATION, RESPONSE, states, type Read } from './wireguard-reads.js';

describe('a counter window shorter than two handshake retries', () => {
  it('is the constant the daemon uses: 11 s', () => {
    expect(MIN_COUNTER_WINDOW_SECONDS).toBe(11);
  });

  it('a reload re-running the job 3 s after a read: the far end waking a healthy idle tunnel, its response lost twice, does not read down', async () => {
    // The far end initiates at 10 s and again at 15.3 s; both responses are lost; the third completes at 20 s.
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 15, peers: [{ key: 'a', rx: 1_000 + INITIATION, tx: 1_000 + RESPONSE }] },
      { at: 18, peers: [{ key: 'a', rx: 1_000 + 2 * INITIATION, tx: 1_000 + 2 * RESPONSE }] },
      { at: 30, peers: [{ key: 'a', rx: 1_000 + 3 * INITIATION + 500, tx: 1_000 + 3 * RESPONSE + 500, handshakeAt: 20 }] },
    ];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:up']);
    // Judged window by window (check's way), the 3 s window confirms what the 15 s one showed: the false page.
    expect(await states(reads, 0)).toEqual(['a:idle', 'a:idle', 'a:down', 'a:up']);
  });

  it('this side starting a handshake just before a short read (its response not back yet) does not read down', async () => {
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 15, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 18, peers: [{ key: 'a', rx: 1_000, tx: 1_000 + INITIATION }] },
      { at: 30, peers: [{ key: 'a', rx: 1_000 + RESPONSE + 200, tx: 1_000 + INITIATION + 200, handshakeAt: 18 }] },
    ];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:up']);
  });

  it('a dead link both sides keep trying stays down through a short window with no retry in it: no recovery between', async () => {
    const trying = (at: number, tries: number): Read => ({ at, peers: [{ key: 'a', rx: 1_000 + tries * INITIATION, tx: 1_000 + tries * (RESPONSE + INITIATION) }] });
    const reads = [trying(0, 0), trying(15, 3), trying(30, 6), trying(33, 6), trying(45, 9)];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:down', 'a:down', 'a:down']);
    // Judged as it is, the 3 s window with nothing sent read idle, and broke the two windows in a row the 15 s window
    // after it needed: a recovery for two runs.
    expect(await states(reads, 0)).toEqual(['a:idle', 'a:idle', 'a:down', 'a:idle', 'a:idle']);
  });

  it('a wall clock set back 2 s re-running a slot is a short window too (the monotonic clock tells it)', async () => {
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 15, peers: [{ key: 'a', rx: 1_000 + INITIATION, tx: 1_000 + RESPONSE }] },
      { at: 17, wallOffset: -2, peers: [{ key: 'a', rx: 1_000 + 2 * INITIATION, tx: 1_000 + 2 * RESPONSE }] },
      { at: 32, wallOffset: -2, peers: [{ key: 'a', rx: 1_000 + 3 * INITIATION + 500, tx: 1_000 + 3 * RESPONSE + 500, handshakeAt: 20 }] },
    ];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:up']);
  });

  it('read every 5 s, a dead link this side keeps sending to is down once two windows of 11 s or more in a row show it (at 30 s), and stays down', async () => {
    const reads: Read[] = [0, 5, 10, 15, 20, 25, 30, 35].map((at) => ({ at, peers: [{ key: 'a', rx: 1_000, tx: 1_000 + (at / 5) * INITIATION }] }));
    // Down at 30 s, not 15 s as before: the window 0–15 s is one window of sending unanswered, which never makes a
    // peer expected (a healthy tunnel this side wakes, its response lost, looks so); 15–30 s is the second in a row.
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:idle', 'a:idle', 'a:idle', 'a:down', 'a:down']);
    // Judged as it is, the second 5 s window already paged (10 s after the sending began): no room for the retry that
    // completes a healthy handshake.
    expect((await states(reads, 0))[2]).toBe('a:down');
  });

  it('a peer new in a short window is new to the next run too: its first window starts at its own read', async () => {
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000, handshakeAt: -10 }] },
      { at: 3, peers: [{ key: 'a', rx: 1_100, tx: 1_100, handshakeAt: -10 }, { key: 'n', rx: 0, tx: INITIATION }] },
      { at: 15, peers: [{ key: 'a', rx: 1_200, tx: 1_200, handshakeAt: -10 }, { key: 'n', rx: 0, tx: 4 * INITIATION }] },
      { at: 30, peers: [{ key: 'a', rx: 1_300, tx: 1_300, handshakeAt: -10 }, { key: 'n', rx: 0, tx: 7 * INITIATION }] },
      { at: 45, peers: [{ key: 'a', rx: 1_400, tx: 1_400, handshakeAt: -10 }, { key: 'n', rx: 0, tx: 10 * INITIATION }] },
    ];
    // n never shook hands (its last-handshake says 1,000 s ago here, before it existed: the router's idea). Its first
    // window is 15–30 s and its second 30–45 s: down at 45 s (two windows of sending unanswered in a row). Had its first
    // window been taken from the table's read at 0 s, it would be 0–15 s, and n down at 30 s.
    expect(await states(reads)).toEqual(['a:up', 'a:up n:idle', 'a:up n:idle', 'a:up n:idle', 'a:up n:down']);
  });
});
