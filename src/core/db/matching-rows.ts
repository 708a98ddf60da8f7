import { CompiledQuery } from 'kysely';
import { dialectOf, type Db } from './database.ts';

/** How many rows a statement matches: PostgreSQL's planner's estimate (no row read), SQLite's count. */
export async function matchingRows(db: Db, statement: CompiledQuery): Promise<number> {
  if (dialectOf(db) === 'postgres') {
    const result = await db.executeQuery(
      CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]),
    );
    const plans = (result.rows[0] as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] })['QUERY PLAN'];
    return plans[0].Plan['Plan Rows'];
  }
  const result = await db.executeQuery(
    CompiledQuery.raw(`select count(*) as n from (${statement.sql})`, [...statement.parameters]),
  );
  return Number((result.rows[0] as { n: number }).n);
}
