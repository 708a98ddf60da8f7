import { SignJWT } from 'jose';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import assert from 'node:assert/strict';
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import { GRAPHQL_TEST_ENV } from './graphql-test-client.ts';
import type { TestServer } from './test-server.ts';

/** A result as a subscriber receives it. */
export interface LiveResult {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** What one subscription has received, and how it ended. */
export interface Received {
  results: LiveResult[];
  /** Resolves when the subscription completes or fails (the failure's close event or errors, if any). */
  ended: Promise<unknown>;
  stop(): void;
}

export const wsUrl = (t: { url: string }) => `${t.url.replace(/^http/, 'ws')}/graphql`;

/** A `graphql-ws` client (the library's own) with the token in connection_init's payload; no retries. */
export function wsClient(t: { url: string }, token: string | undefined, onClose?: (event: unknown) => void): WsClient {
  return createWsClient({
    url: wsUrl(t),
    webSocketImpl: WebSocket,
    connectionParams: token === undefined ? {} : { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: onClose ? { closed: onClose } : {},
  });
}

/**
 * A `graphql-ws` client whose token travels only in the upgrade request's Authorization header (its
 * connection_init carries no payload): a WebSocket class of `ws` that sets the header on each connect.
 */
export function wsClientWithUpgradeHeader(
  t: { url: string },
  token: string,
  onClose?: (event: unknown) => void,
): WsClient {
  class WithAuthorization extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: { authorization: `Bearer ${token}` } });
    }
  }
  return createWsClient({
    url: wsUrl(t),
    webSocketImpl: WithAuthorization,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: onClose ? { closed: onClose } : {},
  });
}

/** Subscribes through either library's client (both take the same sink) and collects what arrives. */
function collect(
  client: Pick<WsClient, 'subscribe'>,
  query: string,
  variables: Record<string, unknown> | undefined,
): Received {
  const results: LiveResult[] = [];
  let stop = () => {};
  const ended = new Promise<unknown>((resolve) => {
    stop = client.subscribe(
      { query, variables },
      {
        next: (value) => void results.push(value as LiveResult),
        error: (error) => resolve(error),
        complete: () => resolve(undefined),
      },
    );
  });
  return { results, ended, stop: () => stop() };
}

export function subscribeWs(client: WsClient, query: string, variables?: Record<string, unknown>): Received {
  return collect(client, query, variables);
}

/** A `graphql-sse` client (the library's own, distinct connections mode) with the token in Authorization. */
export function subscribeSse(
  t: { url: string },
  token: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
): Received & { client: ReturnType<typeof createSseClient> } {
  // Its own connection pool, closed with the client: connections the global one keeps after a stopped stream
  // (some never sending a request) held a server's close until its 60 s connection timeout.
  const agent = new Agent();
  const client = createSseClient({
    url: `${t.url}/graphql`,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    fetchFn: (input: string, init: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent }),
  });
  const dispose = client.dispose.bind(client);
  client.dispose = () => {
    dispose();
    void agent.destroy();
  };
  return { ...collect(client, query, variables), client };
}

/** Waits until `check` holds, polling; fails with `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the server's feed reader holds `count` subscriptions (a subscription counts once it is live). */
export function subscriptionsLive(t: TestServer, count: number): Promise<void> {
  return until(() => t.server.app.live.subscriptions === count, `${count} live subscriptions`);
}

/** A token of the test server's signer that expires in `seconds`. */
export async function shortLivedToken(t: TestServer, userId: number, seconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuer(t.config.JWT_ISSUER)
    .setAudience(t.config.JWT_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + seconds)
    .sign(new TextEncoder().encode(t.config.jwtSecret));
}

/** A raw socket speaking graphql-transport-ws by hand (bad input), with every message and its close recorded. */
export function rawSocket(t: { url: string }, headers: Record<string, string> = {}) {
  const socket = new WebSocket(wsUrl(t), 'graphql-transport-ws', { headers });
  const messages: Record<string, unknown>[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code: number, reason: Buffer) => resolve({ code, reason: String(reason) })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, messages, closed, opened, send: (message: unknown) => socket.send(JSON.stringify(message)) };
}

/** `promise`, or a failure naming `what` after `ms` (a rule that breaks fails its test instead of hanging it). */
export function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A new post of `authorId` through REST (its id). */
export async function newPost(
  t: TestServer,
  token: string,
  authorId: number,
  title = 'A post',
  content = 'Some content',
) {
  const res = await t.request('POST', `/api/users/${authorId}/posts`, { token, body: { title, content } });
  assert.equal(res.status, 201, res.text);
  return (res.body as { id: number }).id;
}

/** A new comment on `postId` through REST. */
export async function newComment(t: TestServer, token: string, postId: number, text: string): Promise<void> {
  const res = await t.request('POST', `/api/posts/${postId}/comments`, { token, body: { text } });
  assert.equal(res.status, 201, res.text);
}

/** The test server's settings as environment variables, for a second instance on the same database. */
export function secondInstanceEnv(t: TestServer): Record<string, string> {
  return {
    ...GRAPHQL_TEST_ENV,
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: t.config.DATABASE_URL,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'silent',
    JWT_SECRET: t.config.jwtSecret,
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    ORDER_HOLD_WORKER: 'false',
    DATABASE_POOL_SIZE: '3',
  };
}

/** The value of one sample of `/metrics` (`name{labels} value`); 0 when the line is absent. */
export function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The text of the server's `/metrics`. */
export async function scrape(t: TestServer): Promise<string> {
  const res = await t.request('GET', '/metrics');
  assert.equal(res.status, 200);
  return res.text;
}

/**
 * Comments on `postId`, ten at a time, until `/metrics` counts one more cut-off for `transport` (a subscriber
 * that stopped reading); returns how many cut-offs it counted (1 expected). Each batch waits until the feed
 * reader has handed the batch's events out (its lag histogram counts them) before the next is written: on a
 * loaded machine the reader lags the writes, and a loop paced by the writes alone wrote its last batch before
 * 256 events had reached the subscriber's queue (a CI run at load 9, SQLite: no cut-off after 100 batches).
 */
export async function commentUntilCutOff(
  t: TestServer,
  token: string,
  postId: number,
  transport: string,
  maxBatches = 100,
): Promise<number> {
  const first = await scrape(t);
  const cutOffsBefore = sample(first, 'graphql_subscription_cutoffs_total', transport);
  const handedOutBefore = sample(first, 'graphql_subscription_feed_lag_seconds_count');
  for (let batch = 1; batch <= maxBatches; batch += 1) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => newComment(t, token, postId, `unread ${batch}.${i}`)));
    for (const deadline = Date.now() + 30_000; ;) {
      const metrics = await scrape(t);
      const cutOffs = sample(metrics, 'graphql_subscription_cutoffs_total', transport) - cutOffsBefore;
      if (cutOffs > 0) return cutOffs;
      if (sample(metrics, 'graphql_subscription_feed_lag_seconds_count') - handedOutBefore >= batch * 10) break;
      if (Date.now() > deadline) throw new Error(`the feed reader did not hand out batch ${batch} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return 0;
}
