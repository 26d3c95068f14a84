/** The shape of health verdicts: what GET /health serves as JSON and what `check` prints. */
import type { PeerReason, PeerVerdict } from '../analysis/peer.js';
import type { PeerState, ProbeOutcome } from '../analysis/liveness.js';
import type { SetupCheckName } from '../analysis/setup-audit.js';
import type { WireguardPeer } from '../collectors/wireguard.js';

export type Status = 'ok' | 'degraded' | 'critical';

const RANK: Readonly<Record<Status, number>> = { ok: 0, degraded: 1, critical: 2 };

/** The worst of some statuses; `ok` for none. */
export function worst(statuses: Iterable<Status>): Status {
  let out: Status = 'ok';
  for (const status of statuses) if (RANK[status] > RANK[out]) out = status;
  return out;
}

export interface SetupCheckHealth {
  check: SetupCheckName;
  ok: boolean;
  detail?: string;
  fix?: string;
}

export interface InterfaceHealth {
  name: string;
  /** null when the router did not say. */
  running: boolean | null;
  disabled: boolean;
  status: Status;
  /** Present when the wireguard_setup collector runs for the router. */
  setup?: SetupCheckHealth[];
}

export interface PeerHealth {
  interface: string;
  name: string;
  publicKey: string;
  /** ISO time; null when never. */
  latestHandshake: string | null;
  /** At the time of the request; null when never. */
  handshakeAgeSeconds: number | null;
  healthy: boolean;
  judged: boolean;
  reason: PeerReason;
  /** Liveness state (docs/health.md "Peer states"). */
  state: PeerState;
  /** A session is expected (keepalive, traffic waiting, or expect: always): down and never are problems only then. */
  expected: boolean;
  /** ISO time by which the next handshake is due; null when none is expected or it never shook hands. */
  handshakeExpectedBy: string | null;
  /** Seconds after a handshake by which the next is due (keepalive bound or handshake_stale_after); null when none is expected. */
  handshakeBoundSeconds: number | null;
  /**
   * The data-plane probe (health.probe, probe_tunnels): `ok`, `partial`, `failed`, `error`, or why the peer was
   * not probed (`off`, `no_tunnel_address`, `no_source_address`, `over_cap`). Absent for disabled peers.
   */
  probe?: ProbeOutcome;
  /** The probe's average round trip in seconds, when some ping was answered. */
  probeRttSeconds?: number;
  /** The probe's loss, 0 to 1, when it ran. */
  probeLossRatio?: number;
  status: Status;
}

export interface PingHealth {
  target: string;
  name: string;
  lossRatio: number | null;
  rttSeconds: { min: number | null; avg: number | null; max: number | null };
  status: Status;
  /** ISO time the last run finished; null before the first. */
  lastRun: string | null;
  /** Why the last run failed (an error reason such as `timeout`), when it did. */
  error?: string;
}

export interface RouterHealth {
  name: string;
  status: Status;
  /** null until the router has been tried. */
  up: boolean | null;
  lastSuccess: string | null;
  /** Plain-language reasons for a status other than ok, worst first. */
  reasons: string[];
  interfaces: InterfaceHealth[];
  peers: PeerHealth[];
  pings: PingHealth[];
}

export interface HealthReport {
  status: Status;
  checkedAt: string;
  /** One line naming what is wrong, e.g. "1 stale peer: hq/wg-branch/branch-2 (last handshake 10m ago)". */
  summary: string;
  routers: RouterHealth[];
}

/** What is wrong, structured, so that `check` and the log can group and word it. */
export type ProblemKind =
  | 'router-down'
  | 'not-collected'
  | 'collector-failed'
  | 'interface-down'
  /** An interface whose running state could not be read: degraded, its peers not judged. */
  | 'interface-unjudged'
  | 'peer-stale'
  | 'peer-never'
  /** A peer with a fresh handshake whose tunnel probe got no reply: keys match, traffic does not pass. */
  | 'peer-blocked'
  /** Peers whose handshake could not be read: not judged, so the router is degraded. */
  | 'peer-unjudged'
  /** A peer up whose tunnel probe lost some of its pings: noted (degraded), not a page. */
  | 'peer-probe-loss'
  | 'ping-loss'
  | 'ping-failed'
  | 'setup-failed';

export interface Problem {
  kind: ProblemKind;
  status: Exclude<Status, 'ok'>;
  /** `hq`, `hq/wg-branch`, `hq/wg-branch/branch-2`, `hq/ping branch-tunnel`. */
  subject: string;
  /** The specifics, e.g. "stale, last handshake 10m ago (stale after 5m)". */
  text: string;
  /** The few words a one-line summary shows after the subject, e.g. "last handshake 10m ago". */
  brief: string;
  /**
   * A set-up check's fix, as /health's `setup[].fix` has it (lines joined with ` ; `): a command to paste into a
   * console, which a formatter shows whole and unaltered or not at all (check's plugin output, nagios.ts). `text`
   * ends with ` Fix: <fix>` unless making it a line of text altered it (a bidi control stripped from a name).
   */
  fix?: string;
  /** With `fix`: the text without it. */
  textWithoutFix?: string;
}

export interface RouterEvaluation {
  health: RouterHealth;
  problems: Problem[];
  /** Which parts had data this time: the verdict log carries the last known states of the others over. */
  seen: { wireguard: boolean; setup: boolean; pings: boolean };
  /** Every peer judged, before any wording (empty when the wireguard part was not evaluated). */
  judgements: PeerJudgement[];
}

/** A stored peer judged at the time of asking: what /health words as PeerHealth and the verdict log compares. */
export interface PeerJudgement {
  readonly peer: WireguardPeer;
  readonly verdict: PeerVerdict;
  /** Unix seconds of the latest handshake, when known and inside the era. */
  readonly latestHandshake: number | undefined;
  readonly ageSeconds: number | undefined;
  /** When the router started (Unix seconds), when the run read it: a peer without a handshake is due from then. */
  readonly bootedAt: number | undefined;
}
