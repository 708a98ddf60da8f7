/**
 * Inserts rows `1..total` in statements of at most `chunk` rows, each committed on its own. On PostgreSQL
 * the event feed shows an event once every older transaction of the whole server has ended (xmin is
 * cluster-wide, src/modules/events/README.md): one statement loading 50,000 rows with their indexes held
 * an id for seconds under load and held back the feed of every other test's database (a typed-client test
 * waited over 10 s for its event while the plan tests loaded their tables). Short transactions hold it
 * for a moment each.
 */
export async function insertInChunks(
  total: number,
  insert: (from: number, to: number) => Promise<unknown>,
  chunk = 5_000,
): Promise<void> {
  for (let from = 1; from <= total; from += chunk) await insert(from, Math.min(total, from + chunk - 1));
}
