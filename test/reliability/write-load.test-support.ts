import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/core/db/database.ts';
import { call, insertProducts, signUpUsers, tokenFor, type Answer } from './harness.test-support.ts';

/**
 * A write load (orders with pay/cancel, posts, likes, report jobs) run by several concurrent loops
 * against one or more base URLs, recording every write the server acknowledged with a 2xx, so a
 * check afterwards can prove each acknowledged write is in the database.
 */

export interface LoadWorld {
  users: { id: number; token: string }[];
  products: { id: number; stock: number }[];
  commentIds: number[];
  adminToken: string;
}

export type OrderState = 'pending' | 'paid' | 'cancelled';

export interface Ledger {
  /** Orders acknowledged with 201, with their last acknowledged status and a transition sent but unanswered (or answered 503). */
  orders: Map<number, { status: OrderState; unanswered?: OrderState }>;
  posts: Map<number, string>;
  likes: Set<string>;
  reports: number[];
  /** Answers by status (0 = no HTTP answer), and transport errors by kind. */
  statuses: Map<number, number>;
  errors: Map<string, number>;
  /** Every answer with a 5xx other than 503, or a 2xx with an error body: always a failure. */
  failures: string[];
  latencies: number[];
  /** Every request with its start and end (ms since the epoch) and outcome, in order of answer. */
  trace: {
    id: string;
    method: string;
    path: string;
    start: number;
    end: number;
    status: number;
    error?: string;
    code?: string;
  }[];
}

export function emptyLedger(): Ledger {
  return {
    orders: new Map(),
    posts: new Map(),
    likes: new Set(),
    reports: [],
    statuses: new Map(),
    errors: new Map(),
    failures: [],
    latencies: [],
    trace: [],
  };
}

export interface LoadOptions {
  bases: string[];
  concurrency: number;
  /** Also queue report jobs now and then (admin). */
  reports?: boolean;
  timeoutMs?: number;
  /** One TCP connection per request (spreads requests over cluster workers; makes a refused connection visible). */
  close?: boolean;
}

export interface RunningLoad {
  ledger: Ledger;
  /** Asks the loops to stop and waits until every request in flight has been answered or failed. */
  stop(): Promise<Ledger>;
  /** Resolves once `count` answers of any kind have arrived. */
  answered(count: number): Promise<void>;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

export function startWriteLoad(world: LoadWorld, options: LoadOptions): RunningLoad {
  const ledger = emptyLedger();
  let stopped = false;
  let total = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  let turn = 0;

  async function send(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer> {
    const base = options.bases[turn++ % options.bases.length]!;
    const start = Date.now();
    // Our own request id: the server logs it, so a test can tell which requests the server accepted.
    const id = randomUUID();
    const answer = await call(base, method, path, {
      token,
      body,
      headers: { ...headers, 'x-request-id': id },
      timeoutMs: options.timeoutMs ?? 30_000,
      close: options.close,
    });
    total += 1;
    ledger.trace.push({
      id,
      method,
      path,
      start,
      end: Date.now(),
      status: answer.status,
      error: answer.error,
      code: answer.body?.error?.code,
    });
    ledger.statuses.set(answer.status, (ledger.statuses.get(answer.status) ?? 0) + 1);
    if (answer.error) ledger.errors.set(answer.error, (ledger.errors.get(answer.error) ?? 0) + 1);
    else ledger.latencies.push(answer.ms);
    if (answer.status >= 500 && answer.status !== 503)
      ledger.failures.push(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    if (answer.status >= 200 && answer.status < 300 && answer.body?.error)
      ledger.failures.push(`${method} ${path}: 2xx with an error`);
    for (const waiter of waiters.filter((w) => total >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return answer;
  }

  async function orderStep(): Promise<void> {
    const user = pick(world.users);
    const product = pick(world.products);
    const placed = await send(
      'POST',
      '/api/orders',
      user.token,
      { items: [{ productId: product.id, quantity: 1 + Math.floor(Math.random() * 3) }] },
      { 'idempotency-key': randomUUID() },
    );
    if (placed.status !== 201) return;
    const id = placed.body.id as number;
    const entry: { status: OrderState; unanswered?: OrderState } = { status: 'pending' };
    ledger.orders.set(id, entry);
    const roll = Math.random();
    if (roll < 0.3 || stopped) return;
    const action = roll < 0.7 ? 'pay' : 'cancel';
    const target: OrderState = action === 'pay' ? 'paid' : 'cancelled';
    entry.unanswered = target;
    const moved = await send('POST', `/api/orders/${id}/${action}`, user.token);
    // A 503 leaves the outcome open, like no answer: the connection to the database can be lost after
    // COMMIT reached it and before its acknowledgment came back, and then nobody knows (seen in the
    // outage test about once in ten runs). Other answers (409, 404...) mean nothing changed.
    if (moved.status === 200) {
      entry.status = target;
      delete entry.unanswered;
    } else if (moved.status !== 0 && moved.status !== 503) delete entry.unanswered;
  }

  async function postStep(): Promise<void> {
    const user = pick(world.users);
    const title = `Load post ${randomUUID()}`;
    const res = await send('POST', `/api/users/${user.id}/posts`, user.token, {
      title,
      content: 'Written under load.',
    });
    if (res.status === 201) ledger.posts.set(res.body.id as number, title);
  }

  async function likeStep(): Promise<void> {
    const user = pick(world.users);
    const commentId = pick(world.commentIds);
    const res = await send('POST', `/api/comments/${commentId}/likes`, user.token);
    if (res.status === 201 || res.status === 200) ledger.likes.add(`${commentId}:${user.id}`);
  }

  async function reportStep(): Promise<void> {
    const res = await send('POST', '/api/reports/generate', world.adminToken, {
      type: pick(['sales', 'users', 'content']),
    });
    if (res.status === 202) ledger.reports.push(res.body.id as number);
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const roll = Math.random();
      if (options.reports && roll < 0.05) await reportStep();
      else if (roll < 0.5) await orderStep();
      else if (roll < 0.75) await postStep();
      else await likeStep();
    }
  }

  const loops = Promise.all(Array.from({ length: options.concurrency }, loop));
  return {
    ledger,
    async stop() {
      stopped = true;
      await loops;
      return ledger;
    },
    answered(count) {
      if (total >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
}

export function acknowledgedWrites(ledger: Ledger): number {
  return ledger.orders.size + ledger.posts.size + ledger.likes.size + ledger.reports.length;
}

/** Users (through the API), products with a known stock (in the database), and comments to like. */
export async function prepareWorld(
  base: string,
  db: Db,
  options: { users: number; products: number; stock: number; tag: string },
): Promise<LoadWorld> {
  const users = await signUpUsers(base, options.users, options.tag);
  const products = await insertProducts(db, options.products, options.stock);
  const author = users[0]!;
  const post = await call(base, 'POST', `/api/users/${author.id}/posts`, {
    token: author.token,
    body: { title: 'Likes live here', content: 'Comment me.' },
  });
  if (post.status !== 201) throw new Error(`post failed: ${post.status} ${JSON.stringify(post.body)}`);
  const commentIds: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const comment = await call(base, 'POST', `/api/posts/${post.body.id}/comments`, {
      token: author.token,
      body: { text: `Comment ${i}` },
    });
    if (comment.status !== 201) throw new Error(`comment failed: ${comment.status} ${JSON.stringify(comment.body)}`);
    commentIds.push(comment.body.id as number);
  }
  return { users, products, commentIds, adminToken: await tokenFor(1, 'admin') };
}
