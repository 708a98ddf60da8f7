import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../../src/core/db/database.ts';
import { createNamedStatements } from '../../src/core/db/pg-named-statements.ts';

/** A node of PostgreSQL's `explain (analyze, format json)`. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

const literal = (value: unknown) => (typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value));

/**
 * The plan PostgreSQL runs `statement` (as the service sent it: text and bound values) with once it
 * plans the named statement for any values (a generic plan, after five runs), executed and measured.
 */
export async function explainGenericPlan(
  db: Db,
  statement: { sql: string; parameters: readonly unknown[] },
): Promise<PlanNode> {
  return db.connection().execute(async (session) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(session);
    try {
      await sql.raw(`prepare explained as ${statement.sql}`).execute(session);
      try {
        const explained = await sql
          .raw<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `explain (analyze, format json) execute explained(${statement.parameters.map(literal).join(', ')})`,
          )
          .execute(session);
        return explained.rows[0]!['QUERY PLAN'][0].Plan;
      } finally {
        await sql`deallocate explained`.execute(session); // only ours: the pool's named statements stay prepared
      }
    } finally {
      await sql`reset plan_cache_mode`.execute(session);
    }
  });
}

/**
 * The plan the service gets: statements with a `like` pattern or an `in` list run unnamed
 * (pg-named-statements.ts), so PostgreSQL plans them for their values each time; the others run
 * named, on the generic plan after five runs.
 */
export async function explainAsRun(
  db: Db,
  statement: { sql: string; parameters: readonly unknown[] },
): Promise<PlanNode> {
  if (createNamedStatements().nameOf(statement.sql) !== undefined) return explainGenericPlan(db, statement);
  const explained = await db.executeQuery(
    CompiledQuery.raw(`explain (analyze, format json) ${statement.sql}`, [...statement.parameters]),
  );
  return (explained.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
}
