import type { Db } from '../../core/db/database.ts';
import type { ReportRange } from './report.ts';

/** The aggregate queries behind the reports; every one filters `createdAt` by the report's range. */

type TableWithCreatedAt = 'orders' | 'users' | 'posts' | 'comments' | 'comment_likes';

function inRange<T extends TableWithCreatedAt>(db: Db, table: T, range: ReportRange) {
  // Every table here has `created_at`; typing the query as one of them keeps Kysely's column checks.
  let query = db.selectFrom(table as 'orders');
  if (range.from) query = query.where('created_at', '>=', range.from);
  if (range.to) query = query.where('created_at', '<', range.to);
  return query;
}

export async function salesByStatusAndCurrency(db: Db, range: ReportRange) {
  const rows = await inRange(db, 'orders', range)
    .select((eb) => [
      'status',
      'currency',
      eb.fn.countAll<number>().as('orders'),
      eb.fn.sum<number | string>('amount_cents').as('amount_cents'),
    ])
    .groupBy(['status', 'currency'])
    .execute();
  // PostgreSQL returns sum(bigint) as numeric (a string); SQLite as an integer.
  return rows.map((row) => ({
    status: row.status,
    currency: row.currency,
    orders: Number(row.orders),
    amountCents: Number(row.amount_cents),
  }));
}

export async function usersByRoleAndStatus(db: Db, range: ReportRange) {
  let query = db.selectFrom('users');
  if (range.from) query = query.where('created_at', '>=', range.from);
  if (range.to) query = query.where('created_at', '<', range.to);
  const rows = await query
    .select((eb) => ['role', 'status', eb.fn.countAll<number>().as('count')])
    .groupBy(['role', 'status'])
    .execute();
  return rows.map((row) => ({ role: row.role, status: row.status, count: Number(row.count) }));
}

export async function countCreated(db: Db, table: TableWithCreatedAt, range: ReportRange): Promise<number> {
  const row = await inRange(db, table, range)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
