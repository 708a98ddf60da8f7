import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Row types of every table, in the database's own snake_case. Only repositories see these;
 * services speak in domain objects. Timestamps are ISO 8601 UTC strings with milliseconds on
 * both drivers (PostgreSQL's timestamptz is parsed back into that form by the pool).
 */
type Timestamp = string;
/** SQLite has no boolean type: it stores 0/1, the adapter binds JS booleans as integers. */
type SqlBool = ColumnType<boolean | number, boolean, boolean>;

export interface UsersTable {
  id: Generated<number>;
  name: string;
  email: string;
  age: number | null;
  role: 'user' | 'admin';
  status: 'active' | 'inactive' | 'suspended';
  email_verified: SqlBool;
  password_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UserAvatarsTable {
  user_id: number;
  content_type: string;
  data: Uint8Array;
  updated_at: Timestamp;
}

export interface PostsTable {
  id: Generated<number>;
  author_id: number;
  title: string;
  content: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CommentsTable {
  id: Generated<number>;
  post_id: number;
  author_id: number;
  text: string;
  created_at: Timestamp;
}

export interface CommentLikesTable {
  comment_id: number;
  user_id: number;
  created_at: Timestamp;
}

export interface ProductsTable {
  id: Generated<number>;
  name: string;
  category: string;
  /** Money is stored exactly, as integer cents. */
  price_cents: number;
  stock: number;
  image: string | null;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Products per (category, in stock), kept exact by triggers (migration 0002-products-list). */
export interface ProductCountsTable {
  category: string;
  in_stock: SqlBool;
  n: number;
}

/** Products per (category, in stock, price bucket), kept exact by triggers (migration 0003-product-price-counts). */
export interface ProductPriceCountsTable {
  category: string;
  in_stock: SqlBool;
  /** `floor(price_cents / PRICE_BUCKET_CENTS)` */
  bucket: number;
  n: number;
}

export interface OrdersTable {
  id: Generated<number>;
  customer_id: number;
  status: 'pending' | 'paid' | 'cancelled' | 'refunded';
  amount_cents: number;
  currency: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  paid_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  refunded_at: Timestamp | null;
}

export interface OrderItemsTable {
  id: Generated<number>;
  order_id: number;
  product_id: number;
  name: string;
  quantity: number;
  unit_price_cents: number;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: Timestamp;
}

export interface ReportJobsTable {
  id: Generated<number>;
  type: 'sales' | 'users' | 'content';
  params: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  result: string | null;
  error: string | null;
  requested_by: number | null;
  locked_by: string | null;
  locked_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface Tables {
  users: UsersTable;
  user_avatars: UserAvatarsTable;
  posts: PostsTable;
  comments: CommentsTable;
  comment_likes: CommentLikesTable;
  products: ProductsTable;
  product_counts: ProductCountsTable;
  product_price_counts: ProductPriceCountsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  idempotency_keys: IdempotencyKeysTable;
  report_jobs: ReportJobsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserRowUpdate = Updateable<UsersTable>;
