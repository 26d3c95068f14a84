/** Polls until a condition holds (for hooks, where expect.poll is not available); throws with the last value. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { timeout = 10_000, interval = 250, what = 'condition' }: { timeout?: number; interval?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
