/**
 * The bench's hand-written stacks (bench/reference/, bench/bare/) on a seeded PostgreSQL database, started
 * as `npm run bench` starts them: the bare stack answers W1–W4 as the bench checks them with none of the
 * service's work (no token, no totals, no links, no log); the reference still does that work.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { mintToken } from '../../bench/suite/databases.ts';
import { REFERENCE_WORKLOADS, startHandWritten, type HandWritten } from '../../bench/suite/hand-written.ts';
import { freePort, runCli, type ServerProcess } from '../../bench/suite/processes.ts';
import { WORKLOADS, type WorkloadContext } from '../../bench/suite/workloads.ts';
import { dialectNamed } from '../support/dialects.ts';

const postgres = dialectNamed('postgres');
const ENV = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  DEMO_DATA: 'false',
  JWT_SECRET: 'bench-test-secret-bench-test-secret-0123',
  JWT_TTL_SECONDS: '3600',
  LOG_LEVEL: 'info',
};
const W2_PATH = '/api/products?category=category-07&min_price=100&max_price=500&sort=-price&limit=20&page=2';

describe('the bench’s hand-written stacks (postgres)', { skip: postgres.skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let dir: string;
  let token: string;
  const servers = new Map<HandWritten, ServerProcess>();
  const logOf = (kind: HandWritten) => `${dir}/${kind}.log`;
  const get = (kind: HandWritten, path: string, headers: Record<string, string> = {}) =>
    fetch(servers.get(kind)!.url + path, { headers });
  const contextOf = (kind: HandWritten, withToken: boolean): WorkloadContext => ({
    baseUrl: servers.get(kind)!.url,
    token: withToken ? token : '',
    tokenUserId: 1,
    users: 20,
    products: 4000,
    category: 'category-07',
  });

  before(async () => {
    database = await postgres.createDatabase();
    dir = await mkdtemp(`${tmpdir()}/hand-written-`);
    // Enough for every workload's check: 10 users × 10 posts × 5 comments (W3), ~80 products of category-07 in range (W2).
    const seed = ['--users', '20', '--products', '4000', '--orders', '0', '--likes-per-comment', '0'];
    runCli(['seed', ...seed], { DATABASE_URL: database.url, DEMO_DATA: 'false' });
    token = mintToken(database.url, 1, ENV);
    for (const kind of ['reference', 'bare'] as const) {
      const port = await freePort();
      servers.set(
        kind,
        await startHandWritten(kind, database.url, { ...ENV, PORT: String(port) }, port, [], logOf(kind)),
      );
    }
  });
  after(async () => {
    for (const server of servers.values()) await server.stop();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the bare stack answers W1–W4 as the bench checks them, without a token', async () => {
    for (const workload of WORKLOADS.filter((w) => REFERENCE_WORKLOADS.includes(w.id))) {
      await workload.check(contextOf('bare', false));
    }
  });

  it('the bare stack answers W1 and W2 without links, W2 without a total: just the page', async () => {
    const user = (await (await get('bare', '/api/users/7')).json()) as Record<string, unknown>;
    assert.equal(user.id, 7);
    assert.equal(typeof user.email, 'string', "another user's email is not hidden: there is no caller");
    assert.equal('_links' in user, false);
    const page = (await (await get('bare', W2_PATH)).json()) as { data: Record<string, unknown>[] } & Record<
      string,
      unknown
    >;
    assert.equal(page.data.length, 20);
    assert.deepEqual(Object.keys(page).sort(), ['data', 'page']);
    assert.ok(page.data.every((p) => !('_links' in p) && p.category === 'category-07'));
  });

  it('the bare stack writes no log line for its answers', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await get('bare', `/api/users/${i + 1}`)).status, 200);
    assert.equal(await readFile(logOf('bare'), 'utf8'), '');
  });

  it('the reference still checks the token, counts W2’s total and logs each answer', async () => {
    assert.equal((await get('reference', W2_PATH)).status, 401);
    for (const workload of WORKLOADS.filter((w) => REFERENCE_WORKLOADS.includes(w.id))) {
      await workload.check(contextOf('reference', true));
    }
    const body = (await (await get('reference', W2_PATH, { authorization: `Bearer ${token}` })).json()) as {
      data: { _links: unknown }[];
      pagination: { total: number; page: number };
    };
    // The total counted another way: the bare stack's pages of 100, walked to the end.
    let counted = 0;
    for (let page = 1, size = 100; size === 100; page += 1) {
      const path = `/api/products?category=category-07&min_price=100&max_price=500&limit=100&page=${page}`;
      size = ((await (await get('bare', path)).json()) as { data: unknown[] }).data.length;
      counted += size;
    }
    assert.ok(counted > 40, `${counted} products in range`);
    assert.equal(body.pagination.total, counted);
    assert.equal(body.pagination.page, 2);
    assert.ok(body.data.every((p) => p._links));
    // Its log is written asynchronously (as the service's): give the last lines a moment to land.
    let log = '';
    for (let i = 0; i < 40 && !log.includes('request completed'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      log = await readFile(logOf('reference'), 'utf8');
    }
    assert.match(log, /request completed/);
  });
});
