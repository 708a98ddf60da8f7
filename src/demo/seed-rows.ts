import type { Insertable } from 'kysely';
import type { CommentsTable } from '../modules/comments/comments.table.ts';
import type { OrdersTable } from '../modules/orders/orders.table.ts';
import type { PostsTable } from '../modules/posts/posts.table.ts';
import type { ProductsTable } from '../modules/products/products.table.ts';
import type { UsersTable } from '../modules/users/users.table.ts';
import { intBetween, pick, rowRandom, STREAM, type Random } from './seed-random.ts';
import { FIRST_NAMES, LAST_NAMES, PRODUCT_ADJECTIVES, PRODUCT_MATERIALS, PRODUCT_NOUNS, WORDS } from './seed-words.ts';
import { POST_TEXT_WORDS, PRODUCT_TEXT_WORDS } from './seed-vocabulary.ts';

/**
 * Pure row generators: row `i` of a table is a function of (seed, i) and, for child rows, the ids
 * and times of its parents. Time comes from a fixed base date plus offsets, never from the clock,
 * so two runs produce identical rows.
 */
export const BASE_TIME = Date.UTC(2025, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const iso = (ms: number): string => new Date(ms).toISOString();

export function userCreatedAt(index: number): number {
  return BASE_TIME + index * MINUTE;
}

/** `runTag` (the largest user id before this run) keeps emails unique when seeding a database twice. */
export function userRow(seed: number, index: number, runTag: number): Insertable<UsersTable> {
  const random = rowRandom(seed, STREAM.users, index);
  const first = pick(random, FIRST_NAMES);
  const last = pick(random, LAST_NAMES);
  const at = iso(userCreatedAt(index));
  return {
    name: `${first} ${last}`,
    email: `r${runTag}.${first}.${last}.${index + 1}@example.com`.toLowerCase(),
    age: random() < 0.1 ? null : intBetween(random, 18, 80),
    role: 'user',
    status: 'active',
    email_verified: random() < 0.7,
    password_hash: null,
    created_at: at,
    updated_at: at,
  };
}

/**
 * A word of `words`, the first ones far more often than the last (the square of a uniform draw): real
 * text has common and rare words, and a search benchmark needs both.
 */
function pickSkewed(random: Random, words: readonly string[]): string {
  return words[Math.floor(random() ** 2 * words.length)]!;
}

function sentence(random: Random, minWords: number, maxWords: number, vocabulary?: readonly string[]): string {
  const count = intBetween(random, minWords, maxWords);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(vocabulary ? pickSkewed(random, vocabulary) : pick(random, WORDS));
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(random: Random): string {
  const sentences: string[] = [];
  for (let i = intBetween(random, 2, 5); i > 0; i--) sentences.push(sentence(random, 6, 14, POST_TEXT_WORDS));
  return sentences.join(' ');
}

export function postCreatedAt(authorCreatedAt: number, postOfAuthor: number, random: Random): number {
  return authorCreatedAt + (postOfAuthor + 1) * DAY + Math.floor(random() * HOUR);
}

export interface Timed<Row> {
  row: Row;
  createdAt: number;
}

/** Post `index` overall is post number `index % perUser` of author `index / perUser`. */
export function postRow(seed: number, index: number, perUser: number, authorId: number): Timed<Insertable<PostsTable>> {
  const random = rowRandom(seed, STREAM.posts, index);
  const createdAt = postCreatedAt(userCreatedAt(Math.floor(index / perUser)), index % perUser, random);
  const title = sentence(random, 3, 9, POST_TEXT_WORDS).slice(0, -1).slice(0, 200);
  const paragraphs: string[] = [];
  for (let i = intBetween(random, 1, 4); i > 0; i--) paragraphs.push(paragraph(random));
  const at = iso(createdAt);
  return {
    createdAt,
    row: { author_id: authorId, title, content: paragraphs.join('\n\n'), created_at: at, updated_at: at },
  };
}

/** Comment `index` overall is comment number `index % perPost` of its post, by a random seeded user. */
export function commentRow(
  seed: number,
  index: number,
  perPost: number,
  post: { id: number; createdAt: number },
  userIds: Int32Array,
): Timed<Insertable<CommentsTable>> {
  const random = rowRandom(seed, STREAM.comments, index);
  const authorId = userIds[Math.floor(random() * userIds.length)]!;
  const createdAt = post.createdAt + ((index % perPost) + 1) * HOUR + Math.floor(random() * HOUR);
  const text = Array.from({ length: intBetween(random, 1, 3) }, () => sentence(random, 4, 16)).join(' ');
  return { createdAt, row: { post_id: post.id, author_id: authorId, text, created_at: iso(createdAt) } };
}

/** The `k`-th liker of comment `index`: consecutive users from a random start, so likers are distinct. */
export function likeUserIndex(seed: number, index: number, k: number, userCount: number): number {
  const start = Math.floor(rowRandom(seed, STREAM.likes, index)() * userCount);
  return (start + k) % userCount;
}

export function likeCreatedAt(commentCreatedAt: number, like: number): string {
  return iso(commentCreatedAt + (like + 1) * 17 * MINUTE);
}

export function categoryName(index: number, categories: number): string {
  return `category-${String(index + 1).padStart(Math.max(2, String(categories).length), '0')}`;
}

/** Prices 1.00–999.99 in cents; about one product in ten is out of stock. */
export function productRow(seed: number, index: number, categories: number): Insertable<ProductsTable> {
  const random = rowRandom(seed, STREAM.products, index);
  const name = `${pick(random, PRODUCT_ADJECTIVES)} ${pick(random, PRODUCT_MATERIALS)} ${pick(random, PRODUCT_NOUNS)} ${index + 1}`;
  const at = iso(BASE_TIME + index * 1000);
  return {
    name: name.slice(0, 200),
    category: categoryName(Math.floor(random() * categories), categories),
    price_cents: intBetween(random, 100, 99_999),
    stock: random() < 0.1 ? 0 : intBetween(random, 1, 500),
    image: random() < 0.8 ? `https://images.example.com/products/${index + 1}.jpg` : null,
    description: random() < 0.9 ? sentence(random, 8, 20, PRODUCT_TEXT_WORDS) : null,
    created_at: at,
    updated_at: at,
  };
}

export interface OrderPlan {
  customerIndex: number;
  items: { productIndex: number; quantity: number }[];
  row: Omit<Insertable<OrdersTable>, 'customer_id' | 'amount_cents'>;
}

/**
 * A generated history lies in the past, beyond any order hold (DECISIONS §3): an order left unpaid
 * was cancelled when its hold ran out, so the history has no pending orders (the order-hold sweep would
 * otherwise cancel them at the first start and return stock they never took).
 */
const STATUSES = [
  [0.3, 'expired'],
  [0.75, 'paid'],
  [0.9, 'cancelled'],
  [1, 'refunded'],
] as const;

/** The default ORDER_HOLD_MINUTES: when an unpaid order of the history was cancelled. */
const HOLD_MINUTES = 30;

/** An order of 1–3 distinct products; its status decides which of paid/cancelled/refunded_at are set. */
export function orderPlan(
  seed: number,
  index: number,
  userCount: number,
  productCount: number,
  currency: string,
): OrderPlan {
  const random = rowRandom(seed, STREAM.orders, index);
  const itemCount = Math.min(intBetween(random, 1, 3), productCount);
  const items: OrderPlan['items'] = [];
  while (items.length < itemCount) {
    const productIndex = Math.floor(random() * productCount);
    if (items.some((item) => item.productIndex === productIndex)) continue;
    items.push({ productIndex, quantity: intBetween(random, 1, 3) });
  }
  const customerIndex = Math.floor(random() * userCount);
  const roll = random();
  const rolled = STATUSES.find(([limit]) => roll < limit)![1];
  const status = rolled === 'expired' ? 'cancelled' : rolled;
  const created = BASE_TIME + 60 * DAY + index * MINUTE + Math.floor(random() * MINUTE);
  const paid = status === 'paid' || status === 'refunded' ? created + intBetween(random, 1, 30) * MINUTE : null;
  const cancelled =
    rolled === 'expired'
      ? created + HOLD_MINUTES * MINUTE
      : status === 'cancelled'
        ? created + intBetween(random, 1, 48) * HOUR
        : null;
  const refunded = status === 'refunded' ? paid! + intBetween(random, 1, 14) * DAY : null;
  const updated = Math.max(created, paid ?? 0, cancelled ?? 0, refunded ?? 0);
  return {
    customerIndex,
    items,
    row: {
      status,
      currency,
      created_at: iso(created),
      updated_at: iso(updated),
      paid_at: paid === null ? null : iso(paid),
      cancelled_at: cancelled === null ? null : iso(cancelled),
      refunded_at: refunded === null ? null : iso(refunded),
    },
  };
}
