import { loadConfig, type Config } from '../../src/config/config.ts';
import type { Role } from '../../src/core/access/principal.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import type { TestDialect } from './dialects.ts';
import { checkFetched, type CheckedAnswer } from './checked-answer.ts';
import { contractChecker } from './openapi-validator.ts';

export const TEST_ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };

export interface RequestOptions {
  body?: unknown;
  /** A raw body sent as is, with its own content type. */
  raw?: string | Uint8Array;
  token?: string | undefined;
  headers?: Record<string, string>;
}

/** An answer, checked against the OpenAPI document of its version. */
export type TestResponse = CheckedAnswer;

export interface TestServer {
  url: string;
  server: RunningServer;
  config: Config;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Mints a token with the server's secret, as `cli token` does. */
  tokenFor(userId: number, role?: Role): Promise<string>;
  adminToken: string;
  /** Creates a user through the API and returns it with a token of their own. */
  createUser(fields?: Record<string, unknown>): Promise<{ id: number; token: string; user: Record<string, unknown> }>;
  close(): Promise<void>;
}

let userCounter = 0;

/** Starts the real server (migrations, bootstrap, HTTP on a free port) on a fresh database. */
export async function startTestServer(dialect: TestDialect, env: Record<string, string> = {}): Promise<TestServer> {
  // The contract checker is built once per test process: the v1 and v2 documents from a whole app, then
  // one validator per response schema. That is seconds of mostly synchronous work on a loaded machine
  // (12.9 s at load 9). Built by the first answer a test checked, it stalled this process's event loop
  // while the server in the same process held connections it had accepted and not yet read: Node's
  // header deadline (HEADERS_TIMEOUT_MS, 10 s, counted from the accept) ran out during the stall and
  // answered 408 to requests the client had already sent (the permission matrix, a CI run at load 13).
  // Built here, before the server listens, it stalls no request.
  await contractChecker();
  const database = await dialect.createDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: database.url,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'test-secret-test-secret-test-secret-42',
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    // The test process shares its event loop with the server and a busy CI machine: no load shedding
    // unless a test turns it on.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    // No background sweep issuing statements in the middle of a test's statement count; the order-hold
    // suite turns it on.
    ORDER_HOLD_WORKER: 'false',
    // Several suites and servers run at once against one PostgreSQL (100 connections by default).
    DATABASE_POOL_SIZE: '3',
    ...env,
  });
  const server = await startServer(config);
  const url = server.url;

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    return checkFetched(method, await fetch(`${url}${path}`, { method, headers, body: body as RequestInit['body'] }));
  }

  const tokenFor = async (userId: number, role: Role = 'user') =>
    (await server.app.services.tokens.issue({ userId, role })).access_token;
  const adminToken = await tokenFor(1, 'admin');

  return {
    url,
    server,
    config,
    request,
    tokenFor,
    adminToken,
    async createUser(fields = {}) {
      userCounter += 1;
      const response = await request('POST', '/api/users', {
        body: { name: `User ${userCounter}`, email: `user${userCounter}-${Date.now()}@example.com`, ...fields },
        token: 'role' in fields || 'status' in fields ? adminToken : undefined,
      });
      if (response.status !== 201) throw new Error(`createUser failed: ${response.status} ${response.text}`);
      const user = response.body as { id: number; role: Role };
      return { id: user.id, user: response.body, token: await tokenFor(user.id, user.role) };
    },
    async close() {
      await server.close();
      await database.drop();
    },
  };
}
