import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTokenService } from '../../src/core/access/tokens.ts';
import { createDatabase, type Db } from '../../src/core/db/database.ts';
import { checkAnswer, checkIncoming, type CheckedAnswer } from '../support/checked-answer.ts';
import { spawnServer, type ChildServer } from '../support/child-server.ts';

/**
 * Process-level test harness: real server processes (`node src/cli.ts serve`) that the suites kill,
 * signal and restart, an HTTP client that never throws, and tokens minted with the shared secret.
 */

export const SECRET = 'reliability-test-secret-reliability-test-secret';
export const ADMIN_PASSWORD = 'reliability-admin-password';

/** Settings of every reliability server: quiet demo data, no shedding, room for a load. */
export const BASE_ENV: Record<string, string> = {
  JWT_SECRET: SECRET,
  ADMIN_PASSWORD,
  DEMO_DATA: 'false',
  LOG_LEVEL: 'info',
  // Shedding is switched on only by the overload suite: on a busy CI machine it would turn a load into 503s.
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  RATE_LIMIT_MAX: '1000000',
  DATABASE_POOL_SIZE: '4',
};

const running = new Set<ChildServer>();
let cleanupRegistered = false;

/** Spawns a server process that is SIGKILLed after the suite even when an assertion fails midway. */
export async function startProcess(
  env: Record<string, string>,
  options: { untilReady?: boolean } = {},
): Promise<ChildServer> {
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    after(() => {
      for (const server of running) server.process.kill('SIGKILL');
    });
  }
  const server = await spawnServer({ ...BASE_ENV, ...env }, undefined, undefined, options);
  running.add(server);
  void server.exited.then(() => running.delete(server));
  return server;
}

const tokens = createTokenService({
  secret: SECRET,
  issuer: 'content-service',
  audience: 'content-service',
  ttlSeconds: 3600,
});

/** A token every server of the suite accepts, as `cli token` would print. */
export async function tokenFor(userId: number, role: 'user' | 'admin' = 'user'): Promise<string> {
  return (await tokens.issue({ userId, role })).access_token;
}

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  ms: number;
  /** Set instead of a status when no HTTP answer came (refused, reset, timed out). */
  error?: string;
}

export interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** A new TCP connection for this request (no keep-alive), e.g. to spread requests over cluster workers. */
  close?: boolean;
}

/**
 * One HTTP request; transport failures come back as `{status: 0, error}` instead of throwing. An
 * answer the OpenAPI document does not describe throws `ContractViolation`, as `request()` does.
 */
export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.close) headers.connection = 'close';
  const started = performance.now();
  let received: { status: number; headers: Headers; text: string };
  let ms: number;
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    received = { status: response.status, headers: response.headers, text: await response.text() };
    ms = performance.now() - started;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).name ?? String(error);
    return { status: 0, headers: new Headers(), body: undefined, ms: performance.now() - started, error: reason };
  }
  const checked = await checkAnswer(method, path, received);
  // A body that is not JSON is kept as its text.
  return { status: checked.status, headers: checked.headers, body: checked.body ?? checked.text, ms };
}

/**
 * A JSON POST whose body is sent in two halves: accepted (its `X-Request-Id` is `id`) and in
 * progress until `finish()` sends the rest. Its answer is checked against the OpenAPI document.
 */
export function slowPost(base: string, path: string, token: string | undefined, body: unknown) {
  const text = JSON.stringify(body);
  const id = randomUUID();
  const { hostname, port } = new URL(base);
  const headers = {
    'x-request-id': id,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  let finish = () => {};
  const answer = new Promise<CheckedAnswer>((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'POST', headers }, (res) =>
      checkIncoming('POST', path, res).then(resolve, reject),
    );
    req.on('error', reject);
    req.write(text.slice(0, 5));
    finish = () => req.end(text.slice(5));
  });
  return { id, answer, finish: () => finish() };
}

/** Polls `check` until it returns true or the time is up. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A direct connection for set-up and inspection, as an operator would open one. */
export function openDatabase(url: string): Db {
  return createDatabase(url, { poolSize: 2 });
}

/** Products set straight into the database (the test needs known initial stock). */
export async function insertProducts(db: Db, count: number, stock: number): Promise<{ id: number; stock: number }[]> {
  const at = new Date().toISOString();
  const rows = Array.from({ length: count }, (_, i) => ({
    name: `Reliability product ${i + 1}`,
    category: 'reliability',
    price_cents: 100 + i,
    stock,
    image: null,
    description: null,
    created_at: at,
    updated_at: at,
  }));
  const inserted = await db.insertInto('products').values(rows).returning(['id', 'stock']).execute();
  return inserted.map((row) => ({ id: Number(row.id), stock: Number(row.stock) }));
}

/** Signs up `count` users through the API and returns their ids and tokens. */
export async function signUpUsers(base: string, count: number, tag: string): Promise<{ id: number; token: string }[]> {
  const users = [];
  for (let i = 0; i < count; i += 1) {
    const res = await call(base, 'POST', '/api/users', {
      body: { name: `Load ${i}`, email: `load-${tag}-${i}@example.com` },
    });
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
    users.push({ id: res.body.id as number, token: await tokenFor(res.body.id as number) });
  }
  return users;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
