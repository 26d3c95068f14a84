/** `items` in an order drawn from `seeds` (fast-check's infiniteStream of naturals): a Fisher–Yates shuffle. */
export function shuffledBy<T>(items: readonly T[], seeds: Iterator<number>): T[] {
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = (seeds.next().value as number) % (i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j] as T, shuffled[i] as T];
  }
  return shuffled;
}
