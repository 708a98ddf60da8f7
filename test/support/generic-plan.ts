import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { observeQueries, type Db } from '../../src/core/db/database.ts';
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
 * plans the named statement for any values (a generic plan, after five runs), executed and measured;
 * `custom`: the plan of its first five runs, made for these values.
 */
export async function explainGenericPlan(
  db: Db,
  statement: { sql: string; parameters: readonly unknown[] },
  plan: 'generic' | 'custom' = 'generic',
): Promise<PlanNode> {
  return db.connection().execute(async (session) => {
    await sql.raw(`set plan_cache_mode = force_${plan}_plan`).execute(session);
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

/** The scans of `table` in a plan, at any depth. */
export function scansOf(table: string, node: PlanNode): PlanNode[] {
  const own = node['Node Type'].includes('Scan') && node['Relation Name'] === table ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => scansOf(table, child))];
}

/** The entries a scan read: those it returned and those its filter removed, in every loop. */
export const rowsRead = (scan: PlanNode): number =>
  (scan['Actual Rows'] + (scan['Rows Removed by Filter'] ?? 0)) * scan['Actual Loops'];

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

/**
 * Asserts that the list statement `path` runs (the one reading `table` with a `limit`, not a count)
 * scans `table` through indexes only and reads no more than `maxRows` entries of it; returns the body.
 */
export async function assertServedByIndex(
  db: Db,
  table: string,
  request: () => Promise<{ status: number; text: string; body: unknown }>,
  maxRows: number,
  label: string,
): Promise<unknown> {
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  const stop = observeQueries(db, (text, _ms, _failed, parameters) => statements.push({ sql: text, parameters }));
  const res = await request();
  stop();
  assert.equal(res.status, 200, `${label}: ${res.text}`);
  const from = new RegExp(`from "${table}"`);
  const page = statements.find((s) => from.test(s.sql) && /limit/.test(s.sql) && !/count\(/.test(s.sql));
  assert.ok(page, `${label}: the page statement among ${statements.map((s) => s.sql).join('\n')}`);
  const plan = await explainAsRun(db, page);
  const shown = JSON.stringify(plan, null, 1);
  const scans = scansOf(table, plan);
  assert.ok(scans.length > 0, shown);
  for (const scan of scans) {
    assert.notEqual(scan['Node Type'], 'Seq Scan', `${label} scans the ${table} table:\n${shown}`);
    assert.ok(rowsRead(scan) <= maxRows, `${label}: a scan read ${rowsRead(scan)} entries:\n${shown}`);
  }
  return res.body;
}
