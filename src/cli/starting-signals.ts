/**
 * The daemon's SIGHUP from the first moment of the `run` command. In a module of its own, without imports: the
 * daemon's modules take ~0.5 s of CPU to load, and a SIGHUP in that time must find a listener too.
 */
/** A SIGHUP that came while the daemon started, kept until handleSignals takes over. */
export interface StartingSignals {
  /** Whether a SIGHUP came. */
  readonly reloadWanted: boolean;
  /** Stops listening (handleSignals does, once its own listener is on). */
  release(): void;
}

/**
 * Listens for SIGHUP from the start of the `run` command: without a listener, Node ends the process on SIGHUP,
 * and the daemon's own (handleSignals) is on only once modules, config, server and collection have started, a
 * second or more on a large config. A reload sent then (config management right after a restart, the systemd
 * unit's ExecReload) ended the exporter with status 129 (found by review). The config read at start may already
 * be older than the file by then, so such a SIGHUP reloads once the daemon is up. SIGTERM and SIGINT keep their
 * default, which ends the process: a start that hangs must still be stoppable. As PID 1 (a container without an
 * init) a signal without a listener is ignored instead, and a pod stopped while the exporter started waited out
 * its grace period for SIGKILL (found by review): there, they end it as the default would elsewhere, 128 + the
 * signal's number. So they do anywhere when the start has something to undo first (`undo`: the demo's
 * temporary folder, which a Ctrl-C while it started left behind).
 */
export function holdReloadsWhileStarting(undo?: () => void): StartingSignals {
  let reloadWanted = false;
  const listener = (): void => {
    reloadWanted = true;
  };
  process.on('SIGHUP', listener);
  const stop = (code: number) => (): void => {
    try {
      undo?.();
    } finally {
      process.exit(code);
    }
  };
  const stops = process.pid === 1 || undo !== undefined ? STOPS.map(([signal, code]) => [signal, stop(code)] as const) : [];
  for (const [signal, stop] of stops) process.on(signal, stop);
  return {
    get reloadWanted() {
      return reloadWanted;
    },
    release: () => {
      process.off('SIGHUP', listener);
      for (const [signal, stop] of stops) process.off(signal, stop);
    },
  };
}

/** The signals that stop a start, with the status their default gives a shell: 128 + the signal's number. */
const STOPS = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const;
