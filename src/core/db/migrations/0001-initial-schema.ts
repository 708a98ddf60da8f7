import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.ts';

/**
 * The whole data model. Deleting a user cascades to their posts, comments, likes and avatar in
 * the database itself (one statement, atomic); orders restrict it, because they are financial records.
 * Every foreign key, filter and sort of the seed has an index; list sorts end in `id` for stable ties.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await t
    .id(db.schema.createTable('users'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
    .addColumn('age', 'integer')
    .addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('user'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('email_verified', t.boolean, (c) => c.notNull().defaultTo(sql.raw(t.falseValue)))
    .addColumn('password_hash', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  for (const column of ['role', 'status', 'name', 'age', 'created_at']) {
    await db.schema.createIndex(`users_${column}_idx`).on('users').columns([column, 'id']).execute();
  }

  await db.schema
    .createTable('user_avatars')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('content_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('data', t.blob, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await t
    .id(db.schema.createTable('posts'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'varchar(200)', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('posts_author_id_idx').on('posts').columns(['author_id', 'id']).execute();

  await t
    .id(db.schema.createTable('comments'))
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comments_post_id_idx').on('comments').columns(['post_id', 'id']).execute();
  await db.schema.createIndex('comments_author_id_idx').on('comments').columns(['author_id', 'id']).execute();

  await db.schema
    .createTable('comment_likes')
    .addColumn('comment_id', 'integer', (c) => c.notNull().references('comments.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('comment_likes_pk', ['comment_id', 'user_id'])
    .execute();
  await db.schema.createIndex('comment_likes_user_id_idx').on('comment_likes').column('user_id').execute();

  await t
    .id(db.schema.createTable('products'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('category', 'varchar(100)', (c) => c.notNull())
    .addColumn('price_cents', t.bigint, (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn('stock', 'integer', (c) => c.notNull().check(sql`stock >= 0`))
    .addColumn('image', 'text')
    .addColumn('description', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('products_category_price_idx')
    .on('products')
    .columns(['category', 'price_cents', 'id'])
    .execute();
  await db.schema.createIndex('products_price_idx').on('products').columns(['price_cents', 'id']).execute();
  await db.schema.createIndex('products_name_idx').on('products').columns(['name', 'id']).execute();
  await db.schema.createIndex('products_created_at_idx').on('products').columns(['created_at', 'id']).execute();

  await t
    .id(db.schema.createTable('orders'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('users.id').onDelete('restrict'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('amount_cents', t.bigint, (c) => c.notNull())
    .addColumn('currency', 'varchar(3)', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('paid_at', t.timestamp)
    .addColumn('cancelled_at', t.timestamp)
    .addColumn('refunded_at', t.timestamp)
    .execute();
  await db.schema.createIndex('orders_customer_id_idx').on('orders').columns(['customer_id', 'id']).execute();
  await db.schema.createIndex('orders_status_idx').on('orders').columns(['status', 'id']).execute();

  await t
    .id(db.schema.createTable('order_items'))
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('restrict'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('unit_price_cents', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_items_order_id_idx').on('order_items').column('order_id').execute();
  await db.schema.createIndex('order_items_product_id_idx').on('order_items').column('product_id').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'varchar(200)', (c) => c.notNull())
    .addColumn('key', 'varchar(200)', (c) => c.notNull())
    .addColumn('request_hash', 'varchar(128)', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_at_idx').on('idempotency_keys').column('created_at').execute();

  await t
    .id(db.schema.createTable('report_jobs'))
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('requested_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('locked_by', 'varchar(100)')
    .addColumn('locked_until', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('finished_at', t.timestamp)
    .execute();
  await db.schema.createIndex('report_jobs_status_idx').on('report_jobs').columns(['status', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'report_jobs',
    'idempotency_keys',
    'order_items',
    'orders',
    'products',
    'comment_likes',
    'comments',
    'posts',
    'user_avatars',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
