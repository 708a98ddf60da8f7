import { anyTable } from './by-id-statements.ts';
import type { Db } from './database.ts';
import { jsonTextHoldingAny } from './like-pattern.ts';

/**
 * Rewrites, in `trx`, the rows of `table` whose JSON text `column` may hold a person's values (their own
 * `resource`, or one of `texts`: `jsonTextHoldingAny`), each by `rewrite`, where it changes anything: the one
 * way an erasure (DECISIONS §19) reaches a module's stored copies. The module names its own table.
 */
export async function rewriteJsonCopies(
  trx: Db,
  where: { table: string; key: string; column: string },
  values: { resource: string; texts: readonly string[] },
  rewrite: (json: string) => string,
): Promise<void> {
  const t = anyTable(trx);
  const holding = await t
    .selectFrom(where.table)
    .select([where.key, where.column])
    .where(jsonTextHoldingAny(where.column, values.texts, values.resource) as never)
    .execute();
  for (const row of holding) {
    const before = String(row[where.column]);
    const after = rewrite(before);
    if (after !== before)
      await t
        .updateTable(where.table)
        .set({ [where.column]: after })
        .where(where.key, '=', row[where.key])
        .execute();
  }
}
