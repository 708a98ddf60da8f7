import type { Db } from '../../src/core/db/database.ts';
import type { Ledger } from './write-load.test-support.ts';

/**
 * Checks run straight against the database after a fault: the acknowledged writes are there and the
 * business invariants hold. Each returns a list of problems (empty when all is well), so a failing
 * assertion shows every broken row at once.
 */

const LIVE = ['pending', 'paid'] as const;

/** For each product: stock + units held by live (pending or paid) orders = the initial stock. */
export async function stockProblems(db: Db, initial: { id: number; stock: number }[]): Promise<string[]> {
  const problems: string[] = [];
  for (const product of initial) {
    const row = await db.selectFrom('products').select('stock').where('id', '=', product.id).executeTakeFirstOrThrow();
    const held = await db
      .selectFrom('order_items')
      .innerJoin('orders', 'orders.id', 'order_items.order_id')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('order_items.quantity'), eb.lit(0)).as('units'))
      .where('order_items.product_id', '=', product.id)
      .where('orders.status', 'in', LIVE)
      .executeTakeFirstOrThrow();
    const stock = Number(row.stock);
    const units = Number(held.units);
    if (stock < 0 || stock + units !== product.stock)
      problems.push(`product ${product.id}: stock ${stock} + held ${units} != ${product.stock}`);
  }
  return problems;
}

/** No order without items, amounts equal to their lines, and timestamps that match the status. */
export async function orderProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const orders = await db.selectFrom('orders').selectAll().execute();
  const items = await db.selectFrom('order_items').select(['order_id', 'quantity', 'unit_price_cents']).execute();
  const lines = new Map<number, { count: number; cents: number }>();
  for (const item of items) {
    const sum = lines.get(Number(item.order_id)) ?? { count: 0, cents: 0 };
    sum.count += 1;
    sum.cents += Number(item.quantity) * Number(item.unit_price_cents);
    lines.set(Number(item.order_id), sum);
  }
  const set = (value: unknown) => value !== null && value !== undefined;
  const expected: Record<string, [boolean, boolean, boolean]> = {
    // paid_at, cancelled_at, refunded_at
    pending: [false, false, false],
    paid: [true, false, false],
    cancelled: [false, true, false],
    refunded: [true, false, true],
  };
  for (const order of orders) {
    const id = Number(order.id);
    const sum = lines.get(id);
    if (!sum) problems.push(`order ${id} has no items`);
    else if (sum.cents !== Number(order.amount_cents))
      problems.push(`order ${id}: amount ${order.amount_cents} != items ${sum.cents}`);
    const shape = expected[order.status];
    if (!shape) problems.push(`order ${id} is in an unknown state ${order.status}`);
    else if (
      set(order.paid_at) !== shape[0] ||
      set(order.cancelled_at) !== shape[1] ||
      set(order.refunded_at) !== shape[2]
    ) {
      problems.push(
        `order ${id} is ${order.status} with paid_at=${order.paid_at} cancelled_at=${order.cancelled_at} refunded_at=${order.refunded_at}`,
      );
    }
  }
  const orphans = [...lines.keys()].filter((id) => !orders.some((order) => Number(order.id) === id));
  for (const id of orphans) problems.push(`items of a missing order ${id}`);
  return problems;
}

/** Every write the ledger says was acknowledged is in the database, in (at least) its acknowledged state. */
export async function missingAcknowledged(db: Db, ledger: Ledger): Promise<string[]> {
  const problems: string[] = [];
  const orders = new Map(
    (await db.selectFrom('orders').select(['id', 'status']).execute()).map((row) => [
      Number(row.id),
      row.status as string,
    ]),
  );
  for (const [id, acked] of ledger.orders) {
    const actual = orders.get(id);
    const allowed = [acked.status, ...(acked.unanswered ? [acked.unanswered] : [])];
    if (!actual) problems.push(`acknowledged order ${id} is missing`);
    else if (!allowed.includes(actual as never))
      problems.push(`order ${id} acknowledged as ${allowed.join('/')} is ${actual}`);
  }
  const posts = new Map(
    (await db.selectFrom('posts').select(['id', 'title']).execute()).map((row) => [Number(row.id), row.title]),
  );
  for (const [id, title] of ledger.posts)
    if (posts.get(id) !== title) problems.push(`acknowledged post ${id} is missing`);
  const likes = new Set(
    (await db.selectFrom('comment_likes').select(['comment_id', 'user_id']).execute()).map(
      (row) => `${row.comment_id}:${row.user_id}`,
    ),
  );
  for (const like of ledger.likes) if (!likes.has(like)) problems.push(`acknowledged like ${like} is missing`);
  if (ledger.reports.length > 0) {
    const jobs = new Set((await db.selectFrom('report_jobs').select('id').execute()).map((row) => Number(row.id)));
    for (const id of ledger.reports) if (!jobs.has(id)) problems.push(`acknowledged report job ${id} is missing`);
  }
  return problems;
}

export async function allProblems(db: Db, ledger: Ledger, initial: { id: number; stock: number }[]): Promise<string[]> {
  return [
    ...(await missingAcknowledged(db, ledger)),
    ...(await stockProblems(db, initial)),
    ...(await orderProblems(db)),
  ];
}
