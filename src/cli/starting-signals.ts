/**
 * Signals before a command's own handling of them is on: the daemon's SIGHUP from the first moment of the `run`
 * command, and SIGTERM/SIGINT as PID 1. In a module of its own, without imports: the daemon's modules take ~0.5 s
 * of CPU to load, and a signal in that time must find a listener too.
 */
/** A SIGHUP that came while the daemon started, kept until handleSignals takes over. */
export interface StartingSignals {
  /** Whether a SIGHUP came. */
  readonly reloadWanted: boolean;
  /** Stops listening (handleSignals does, once its own listener is on). */
  release(): void;
}

/** The signals that stop a command, with the status their default gives a shell: 128 + the signal's number. */
const STOPS = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const;

/**
 * Ends the process at SIGTERM or SIGINT as their default would, after `undo`; returns what stops listening.
 * Elsewhere than PID 1 the signal is raised again with no listener left, so the process ends by it, as a shell
 * running it expects of a Ctrl-C; as PID 1, where the kernel ignores a signal without a listener, it exits with
 * 128 + the signal's number.
 */
function endAtStopSignals(undo?: () => void): () => void {
  const listeners = STOPS.map(([signal, code]) => {
    const listener = (): void => {
      try {
        undo?.();
      } finally {
        release();
        if (process.pid === 1) process.exit(code);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  const release = (): void => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
  return release;
}

/**
 * As PID 1 (a container without an init, a bare Kubernetes pod, Job or CronJob), SIGTERM and SIGINT end any
 * command as their default does elsewhere: the kernel ignores a signal PID 1 has no listener for, and `once`,
 * `check` and a starting daemon ran on past a pod's stop until SIGKILL (found by review). Elsewhere, nothing.
 * Returns what stops listening, for a command whose own handling takes over.
 */
export function endAtStopSignalsAsPid1(): () => void {
  return process.pid === 1 ? endAtStopSignals() : () => undefined;
}

/**
 * Listens for SIGHUP from the start of the `run` command: without a listener, Node ends the process on SIGHUP,
 * and the daemon's own (handleSignals) is on only once modules, config, server and collection have started, a
 * second or more on a large config. A reload sent then (config management right after a restart, the systemd
 * unit's ExecReload) ended the exporter with status 129 (found by review). The config read at start may already
 * be older than the file by then, so such a SIGHUP reloads once the daemon is up. SIGTERM and SIGINT end the
 * process as their default does (a start that hangs must still be stoppable), as PID 1 too, and after `undo` when
 * the start has something to undo first (the demo's temporary folder, which a Ctrl-C while it started left behind).
 */
export function holdReloadsWhileStarting(undo?: () => void): StartingSignals {
  let reloadWanted = false;
  const listener = (): void => {
    reloadWanted = true;
  };
  process.on('SIGHUP', listener);
  const releaseStops = process.pid === 1 || undo !== undefined ? endAtStopSignals(undo) : (): void => undefined;
  return {
    get reloadWanted() {
      return reloadWanted;
    },
    release: () => {
      process.off('SIGHUP', listener);
      releaseStops();
    },
  };
}
