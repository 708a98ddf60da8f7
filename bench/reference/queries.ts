/**
 * The reference's SQL: plain parameterized `pg` queries, written by hand over the service's tables
 * (src/core/db/migrations). Relations read one statement per level: `= any($1)` with a lateral join
 * cuts each parent's page on the `(parent, id)` index.
 */
import type pg from 'pg';

export interface UserRow {
  id: number;
  name: string;
  email: string;
  age: number | null;
  role: string;
  status: string;
  email_verified: boolean;
  created_at: Date;
  updated_at: Date;
}

export const findUser = async (pool: pg.Pool, id: number) =>
  (
    await pool.query<UserRow>(
      'select id, name, email, age, role, status, email_verified, created_at, updated_at from users where id = $1',
      [id],
    )
  ).rows[0];

export const listUsers = async (pool: pg.Pool, limit: number, offset: number) =>
  (
    await pool.query<Pick<UserRow, 'id' | 'name' | 'email'>>(
      'select id, name, email from users order by id limit $1 offset $2',
      [limit, offset],
    )
  ).rows;

export const usersByIds = async (pool: pg.Pool, ids: number[]) =>
  (
    await pool.query<Pick<UserRow, 'id' | 'name' | 'email'>>('select id, name, email from users where id = any($1)', [
      ids,
    ])
  ).rows;

/** A user's posts, newest first (by id, as the service). */
export const postsByAuthors = async (pool: pg.Pool, authorIds: number[], limit: number, offset: number) =>
  (
    await pool.query<{ id: number; author_id: number; title: string }>(
      `select p.id, p.author_id, p.title from unnest($1::int[]) as a(id)
       cross join lateral (select id, author_id, title from posts where author_id = a.id order by id desc limit $2 offset $3) p`,
      [authorIds, limit, offset],
    )
  ).rows;

/** A post's comments, oldest first. */
export const commentsByPosts = async (pool: pg.Pool, postIds: number[], limit: number, offset: number) =>
  (
    await pool.query<{ id: number; post_id: number; author_id: number; text: string }>(
      `select c.id, c.post_id, c.author_id, c.text from unnest($1::int[]) as p(id)
       cross join lateral (select id, post_id, author_id, text from comments where post_id = p.id order by id limit $2 offset $3) c`,
      [postIds, limit, offset],
    )
  ).rows;

export interface ProductFilter {
  category?: string | undefined;
  minCents?: number | undefined;
  maxCents?: number | undefined;
}

const SORTS: Record<string, string> = {
  price: 'price_cents asc',
  '-price': 'price_cents desc',
  name: 'name asc',
  '-name': 'name desc',
  created_at: 'created_at asc',
};

interface Where {
  sql: string;
  values: unknown[];
}

function productsWhere(filter: ProductFilter): Where {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (condition: string, value: unknown) => where.push(condition.replace('?', `$${values.push(value)}`));
  if (filter.category !== undefined) add('category = ?', filter.category);
  if (filter.minCents !== undefined) add('price_cents >= ?', filter.minCents);
  if (filter.maxCents !== undefined) add('price_cents <= ?', filter.maxCents);
  return { sql: where.length ? `where ${where.join(' and ')}` : '', values };
}

async function pageOf(pool: pg.Pool, where: Where, sort: string | undefined, limit: number, offset: number) {
  const order = [SORTS[sort ?? ''], 'id asc'].filter(Boolean).join(', ');
  const n = where.values.length;
  const page = await pool.query(
    `select * from products ${where.sql} order by ${order} limit $${n + 1} offset $${n + 2}`,
    [...where.values, limit, offset],
  );
  return page.rows as Record<string, unknown>[];
}

/** One page of products, no total (the bare stack's W2). */
export const productsPage = (
  pool: pg.Pool,
  filter: ProductFilter,
  sort: string | undefined,
  limit: number,
  offset: number,
) => pageOf(pool, productsWhere(filter), sort, limit, offset);

/** One page of products and the exact total, counted the straightforward way (`count(*)`) beside it. */
export async function listProducts(
  pool: pg.Pool,
  filter: ProductFilter,
  sort: string | undefined,
  limit: number,
  offset: number,
) {
  const where = productsWhere(filter);
  const [rows, count] = await Promise.all([
    pageOf(pool, where, sort, limit, offset),
    pool.query<{ total: string }>(`select count(*) as total from products ${where.sql}`, where.values),
  ]);
  return { rows, total: Number(count.rows[0]!.total) };
}

export const isSort = (sort: string) => sort in SORTS;
