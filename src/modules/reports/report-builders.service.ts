import type { Db } from '../../core/db/database.ts';
import { ORDER_STATUSES } from '../orders/order.ts';
import type { ReportRange, ReportType } from './report.ts';
import * as queries from './report-queries.repository.ts';

/** What each report type computes. Money is a JSON number with at most two decimals, as everywhere. */

async function salesReport(db: Db, range: ReportRange, storeCurrency: string) {
  const rows = await queries.salesByStatusAndCurrency(db, range);
  const currencies = [...new Set([storeCurrency, ...rows.map((row) => row.currency)])].sort();
  // Every status of every currency appears, zeros included, so clients need not guess at absences.
  const byStatus = currencies.flatMap((currency) =>
    ORDER_STATUSES.map((status) => {
      const row = rows.find((r) => r.status === status && r.currency === currency);
      return { status, currency, orders: row?.orders ?? 0, amount: (row?.amountCents ?? 0) / 100 };
    }),
  );
  return { orders: rows.reduce((sum, row) => sum + row.orders, 0), byStatus };
}

async function usersReport(db: Db, range: ReportRange) {
  const rows = await queries.usersByRoleAndStatus(db, range);
  const tally = (key: 'role' | 'status', names: readonly string[]) =>
    Object.fromEntries(
      names.map((name) => [name, rows.filter((row) => row[key] === name).reduce((sum, row) => sum + row.count, 0)]),
    );
  return {
    users: rows.reduce((sum, row) => sum + row.count, 0),
    byRole: tally('role', ['user', 'admin']),
    byStatus: tally('status', ['active', 'inactive', 'suspended']),
  };
}

async function contentReport(db: Db, range: ReportRange) {
  const [posts, comments, likes] = await Promise.all([
    queries.countCreated(db, 'posts', range),
    queries.countCreated(db, 'comments', range),
    queries.countCreated(db, 'comment_likes', range),
  ]);
  return { posts, comments, likes };
}

export async function buildReport(
  db: Db,
  type: ReportType,
  range: ReportRange,
  storeCurrency: string,
): Promise<Record<string, unknown>> {
  const body =
    type === 'sales'
      ? await salesReport(db, range, storeCurrency)
      : type === 'users'
        ? await usersReport(db, range)
        : await contentReport(db, range);
  return { type, from: range.from, to: range.to, ...body };
}
