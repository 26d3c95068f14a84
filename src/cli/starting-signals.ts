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
 * default: a start that hangs must still be stoppable.
 */
export function holdReloadsWhileStarting(): StartingSignals {
  let reloadWanted = false;
  const listener = (): void => {
    reloadWanted = true;
  };
  process.on('SIGHUP', listener);
  return {
    get reloadWanted() {
      return reloadWanted;
    },
    release: () => process.off('SIGHUP', listener),
  };
}
