/**
 * What a synchronous piece of work cost in CPU, for tests that bound it ("at once", "linear", where a hostile input
 * once took seconds). Wall time is the wrong measure there: with the suite's other worker, end-to-end servers and
 * a Prometheus sharing two cores, a run of 300 ms can take 3 s of wall time and fail a bound that guards against a
 * 30 s hang. A synchronous run holds the thread, so the process's CPU over it is the run's own (and V8's helpers'
 * for its garbage), whatever else the machine does.
 */
export function cpuTimed<T>(run: () => T): { value: T; ms: number } {
  const before = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(before);
  return { value, ms: (used.user + used.system) / 1000 };
}
