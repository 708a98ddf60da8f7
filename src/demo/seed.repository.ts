import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Insertable, type RawBuilder } from 'kysely';
import { dialectOf, type Db } from '../core/db/database.ts';
import type { CommentsTable } from '../modules/comments/comments.table.ts';
import type { CommentLikesTable } from '../modules/likes/likes.table.ts';
import { ORDER_COUNTER_TABLES, type OrderItemsTable, type OrdersTable } from '../modules/orders/orders.table.ts';
import type { PostsTable } from '../modules/posts/posts.table.ts';
import { PRODUCT_COUNTER_TABLES, type ProductsTable } from '../modules/products/products.table.ts';
import type { UsersTable } from '../modules/users/users.table.ts';
import { POST_SEARCH } from '../modules/posts/posts.search.ts';
import { SEED_FILLS_WORDS } from '../core/search/full-text.migration.ts';

/**
 * The seed generator's SQL: one multi-row INSERT per batch. On PostgreSQL the rows travel as one
 * array per column through `unnest` (a handful of parameters instead of thousands: measured about
 * twice as fast as a VALUES list, see docs/SEED.md); on SQLite as a VALUES list.
 *
 * Ids come back sorted: both databases number the rows of one INSERT in the order they are given,
 * so the sorted ids line up with the rows sent (SQLite does not promise an order for RETURNING).
 */
type PgType = 'text' | 'integer' | 'bigint' | 'boolean' | 'timestamptz';
type Columns<Row> = readonly (readonly [keyof Row & string, PgType])[];

const USER_COLUMNS = [
  ['name', 'text'],
  ['email', 'text'],
  ['age', 'integer'],
  ['role', 'text'],
  ['status', 'text'],
  ['email_verified', 'boolean'],
  ['password_hash', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const satisfies Columns<Insertable<UsersTable>>;

const POST_COLUMNS = [
  ['author_id', 'integer'],
  ['title', 'text'],
  ['content', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const satisfies Columns<Insertable<PostsTable>>;

const COMMENT_COLUMNS = [
  ['post_id', 'integer'],
  ['author_id', 'integer'],
  ['text', 'text'],
  ['created_at', 'timestamptz'],
] as const satisfies Columns<Insertable<CommentsTable>>;

const LIKE_COLUMNS = [
  ['comment_id', 'integer'],
  ['user_id', 'integer'],
  ['created_at', 'timestamptz'],
] as const satisfies Columns<Insertable<CommentLikesTable>>;

const PRODUCT_COLUMNS = [
  ['name', 'text'],
  ['category', 'text'],
  ['price_cents', 'bigint'],
  ['stock', 'integer'],
  ['image', 'text'],
  ['description', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const satisfies Columns<Insertable<ProductsTable>>;

const ORDER_COLUMNS = [
  ['customer_id', 'integer'],
  ['status', 'text'],
  ['amount_cents', 'bigint'],
  ['currency', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
  ['paid_at', 'timestamptz'],
  ['cancelled_at', 'timestamptz'],
  ['refunded_at', 'timestamptz'],
] as const satisfies Columns<Insertable<OrdersTable>>;

const ORDER_ITEM_COLUMNS = [
  ['order_id', 'integer'],
  ['product_id', 'integer'],
  ['name', 'text'],
  ['quantity', 'integer'],
  ['unit_price_cents', 'bigint'],
] as const satisfies Columns<Insertable<OrderItemsTable>>;

/** `select * from unnest($1::text[], $2::integer[], ...)`: one array parameter per column. */
function unnest<Row>(rows: Row[], columns: Columns<Row>): RawBuilder<unknown> {
  const arrays = columns.map(
    // eslint-disable-next-line no-restricted-syntax -- `type` is from the column tables above (code), never a request's
    ([name, type]) => sql`${sql.val(rows.map((row) => row[name] ?? null))}::${sql.raw(type)}[]`,
  );
  return sql`select * from unnest(${sql.join(arrays)})`;
}

const names = <const C extends readonly (readonly [string, PgType])[]>(columns: C) =>
  columns.map(([name]) => name) as C[number][0][];
const isPostgres = (db: Db) => dialectOf(db) === 'postgres';
const sortedIds = (rows: { id: number }[]): number[] => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

export async function findMaxUserId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

export async function insertSeedUsers(db: Db, rows: Insertable<UsersTable>[]): Promise<number[]> {
  const insert = db.insertInto('users');
  const query = isPostgres(db)
    ? insert.columns(names(USER_COLUMNS)).expression(unnest(rows, USER_COLUMNS))
    : insert.values(rows);
  return sortedIds(await query.returning('id').execute());
}

/**
 * PostgreSQL: the posts' search vocabulary (`post_search_words`) written set-based from the generator's
 * own word list (`vocabulary`: every word its titles and contents hold, seed-vocabulary.test.ts), and
 * the words trigger told to skip this transaction's posts (SEED_FILLS_WORDS), instead of tokenising each
 * post's text a second time. A word of the list no post holds yet stays, as a word whose posts are gone.
 */
async function addSeedPostWords(db: Db, vocabulary: readonly string[]): Promise<void> {
  await sql`select set_config(${SEED_FILLS_WORDS}, 'on', true)`.execute(db);
  await sql`insert into ${sql.table(POST_SEARCH.wordsTable.postgres)} (word)
    select word from unnest(${sql.val([...vocabulary])}::text[]) as word
    where length(word) <= 40 and word !~ '[^[:alpha:]]'
    on conflict do nothing`.execute(db);
}

/** Whether the posts' search vocabulary is there to fill (the posts module's migrations applied, PostgreSQL). */
export async function hasSeedPostWords(db: Db): Promise<boolean> {
  if (!isPostgres(db)) return false;
  const { rows } = await sql<{
    found: boolean;
  }>`select to_regclass(${POST_SEARCH.wordsTable.postgres}) is not null as found`.execute(db);
  return rows[0]?.found === true;
}

export async function insertSeedPosts(
  db: Db,
  rows: Insertable<PostsTable>[],
  vocabulary?: readonly string[],
): Promise<number[]> {
  if (isPostgres(db) && vocabulary) await addSeedPostWords(db, vocabulary);
  const insert = db.insertInto('posts');
  const query = isPostgres(db)
    ? insert.columns(names(POST_COLUMNS)).expression(unnest(rows, POST_COLUMNS))
    : insert.values(rows);
  return sortedIds(await query.returning('id').execute());
}

export async function insertSeedComments(db: Db, rows: Insertable<CommentsTable>[]): Promise<number[]> {
  const insert = db.insertInto('comments');
  const query = isPostgres(db)
    ? insert.columns(names(COMMENT_COLUMNS)).expression(unnest(rows, COMMENT_COLUMNS))
    : insert.values(rows);
  return sortedIds(await query.returning('id').execute());
}

export async function insertSeedLikes(db: Db, rows: Insertable<CommentLikesTable>[]): Promise<void> {
  const insert = db.insertInto('comment_likes');
  await (
    isPostgres(db) ? insert.columns(names(LIKE_COLUMNS)).expression(unnest(rows, LIKE_COLUMNS)) : insert.values(rows)
  ).execute();
}

export async function insertSeedProducts(db: Db, rows: Insertable<ProductsTable>[]): Promise<number[]> {
  const insert = db.insertInto('products');
  const query = isPostgres(db)
    ? insert.columns(names(PRODUCT_COLUMNS)).expression(unnest(rows, PRODUCT_COLUMNS))
    : insert.values(rows);
  return sortedIds(await query.returning('id').execute());
}

export async function insertSeedOrders(db: Db, rows: Insertable<OrdersTable>[]): Promise<number[]> {
  const insert = db.insertInto('orders');
  const query = isPostgres(db)
    ? insert.columns(names(ORDER_COLUMNS)).expression(unnest(rows, ORDER_COLUMNS))
    : insert.values(rows);
  return sortedIds(await query.returning('id').execute());
}

export async function insertSeedOrderItems(db: Db, rows: Insertable<OrderItemsTable>[]): Promise<void> {
  const insert = db.insertInto('order_items');
  await (
    isPostgres(db)
      ? insert.columns(names(ORDER_ITEM_COLUMNS)).expression(unnest(rows, ORDER_ITEM_COLUMNS))
      : insert.values(rows)
  ).execute();
}

/** Name and price of the products an order batch refers to: items copy both. */
export function findProductsForItems(
  db: Db,
  ids: number[],
): Promise<{ id: number; name: string; price_cents: number }[]> {
  return db.selectFrom('products').select(['id', 'name', 'price_cents']).where('id', 'in', ids).execute();
}

/**
 * SQLite's default page cache (2 MB) is far smaller than the indexes of a million products, so
 * inserts would keep reading and writing index pages; a larger cache for this connection keeps
 * them in memory. PostgreSQL needs nothing here.
 */
export async function prepareBulkLoad(db: Db): Promise<void> {
  if (!isPostgres(db)) await sql`pragma cache_size = -262144`.execute(db);
}

/** How long the compaction waits for transactions older than the load before it clusters anyway. */
const OLDER_TRANSACTIONS_MAX_WAIT_MS = 60_000;
const OLDER_TRANSACTIONS_POLL_MS = 50;

/**
 * After a bulk load on PostgreSQL: every batch rewrote the counter rows (migrations 0002-0004, and
 * `order_counts` of the orders module once its migrations are applied), and those that found no room
 * in their page moved, leaving dead versions over many pages. CLUSTER rewrites the small tables
 * compactly in key order (an exclusive lock for milliseconds). VACUUM
 * ANALYZE then marks the new rows' pages all-visible, so index-only scans (the products list reads a
 * page's keys that way, products.list.repository.ts) need not visit the table until autovacuum comes
 * by, and gives the planner the new sizes. SQLite keeps no dead row versions and has no visibility
 * map; its statistics are left to `analyze`.
 *
 * CLUSTER drops only the versions no transaction can still see: it keeps every "recently dead" one.
 * Its horizon is the oldest snapshot of this database's sessions, its own included, and a snapshot
 * reaches back to the oldest transaction id still running in any database of the server. So the
 * load's old counter versions stay until every write that was running when the load ended has
 * ended, wherever it runs: one longer write elsewhere (another database's bulk load; a second CI
 * run on the same server) made CLUSTER copy all 20 versions of each counter of a 20,000-product
 * load, many times the pages it needs (reproduced with a transaction left open in another database).
 * Hence `waitForOlderTransactions` first, as CREATE INDEX CONCURRENTLY waits for older snapshots;
 * bounded, because a session left idle in a transaction must not hang the seed (the tables are then
 * clustered anyway, as compact as PostgreSQL allows at that moment).
 */
export async function compactAfterBulkLoad(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  await waitForOlderTransactions(db, OLDER_TRANSACTIONS_MAX_WAIT_MS);
  for (const { table, key } of [...PRODUCT_COUNTER_TABLES, ...ORDER_COUNTER_TABLES]) {
    // `order_counts` is the orders module's (applied by `seed` as by the server); looked up all the same.
    const { rows } = await sql<{ found: boolean }>`select to_regclass(${table}) is not null as found`.execute(db);
    if (rows[0]?.found) await sql`cluster ${sql.table(table)} using ${sql.ref(key)}`.execute(db);
  }
  await sql`vacuum analyze`.execute(db);
}

/**
 * Waits until no transaction that got its id before this call is running (those ids are all below
 * the `xmax` of a snapshot taken now, so `pg_snapshot_xmin` of a later snapshot passes it) and no session
 * of this database holds a snapshot older than it (`backend_xmin`: an open REPEATABLE READ
 * transaction, a long query). Past that point no snapshot, this statement's or a later one's, can see
 * a row version deleted before the call. True when the point was reached within `maxMs`.
 */
async function waitForOlderTransactions(db: Db, maxMs: number): Promise<boolean> {
  const start = await sql<{ xmax: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as xmax`.execute(db);
  const horizon = start.rows[0]!.xmax;
  const deadline = performance.now() + maxMs;
  for (;;) {
    const { rows } = await sql<{ older: boolean }>`
      select pg_snapshot_xmin(pg_current_snapshot()) < ${horizon}::xid8
          or exists (select from pg_stat_activity
                      where datname = current_database() and pid <> pg_backend_pid()
                        and age(backend_xmin) > age(${horizon}::xid8::xid)) as older`.execute(db);
    if (!rows[0]!.older) return true;
    if (performance.now() >= deadline) return false;
    await sleep(OLDER_TRANSACTIONS_POLL_MS);
  }
}
