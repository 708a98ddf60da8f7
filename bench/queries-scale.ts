/**
 * Issue 36's scale benchmark, for the lists built on the query grammar (docs/QUERYING.md): seeds a
 * large data set with the project's own generator (`seed`), then times each request one at a time
 * (median of 20 after 5 warm-ups, an admin token) and prints a Markdown table for bench/RESULTS.md.
 *
 *   npm run bench:scale -- [--dialect postgres|sqlite] [--users 1000000] [--posts-per-user 0]
 *                          [--comments-per-post 0] [--orders 0] [--products 0] [--keep] [--reuse URL]
 *
 * The defaults seed users only (the lists of this benchmark); pass the issue's full figures
 * (`--posts-per-user 5 --comments-per-post 2 --orders 1000000 --products 1000000`) to seed comments,
 * orders and products as well; with posts, the posts lists are timed too (postRequests), with comments
 * a post's comments, with orders the orders list (bench/queries-scale-lists.ts, GraphQL's lists too),
 * and with products the products list (bench/queries-scale-products.ts). `--keep` leaves the database
 * in place (its URL on stderr) for EXPLAIN ANALYZE of the slow requests; drop it by hand afterwards.
 * `--reuse URL` times a database seeded and kept so (the same size options), without seeding again.
 * `--compare URL2` starts a second service on another database of the same data and times each request on
 * both, run by run in turn, printing both medians and their ratio (bench/trash-scale.ts).
 */
import { parseArgs } from 'node:util';
import { serviceEnv, startService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, type Dialect } from './suite/databases.ts';
import { runCli } from './suite/processes.ts';
import { commentRequests, graphqlRequests, orderRequests, type ScaleRequest } from './queries-scale-lists.ts';
import { productRequests } from './queries-scale-products.ts';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'postgres' },
    users: { type: 'string', default: '1000000' },
    'posts-per-user': { type: 'string', default: '0' },
    'comments-per-post': { type: 'string', default: '0' },
    orders: { type: 'string', default: '0' },
    products: { type: 'string', default: '0' },
    runs: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    /** A second database of the same data (e.g. with a trash beside it): each request timed on both, in turn. */
    compare: { type: 'string' },
  },
});
const dialect = values.dialect as Dialect;
const USERS = Number(values.users);
const RUNS = Number(values.runs);

const database = values.reuse ? { url: values.reuse, drop: async () => {} } : await createBenchDatabase(dialect);
try {
  const seedStart = performance.now();
  if (!values.reuse)
    runCli(
      [
        'seed',
        '--users',
        String(USERS),
        '--posts-per-user',
        values['posts-per-user'],
        '--comments-per-post',
        values['comments-per-post'],
        '--products',
        values.products,
        '--orders',
        values.orders,
      ],
      { DATABASE_URL: database.url, DEMO_DATA: 'false' },
    );
  if (!values.reuse) console.error(`seeded ${USERS} users in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);

  // The seed applies the core's migrations; the modules' (their indexes) would run at the service's first
  // start, longer than a start may take at this size.
  const migrateStart = performance.now();
  runCli(['migrate'], { DATABASE_URL: database.url, DEMO_DATA: 'false' });
  console.error(`migrated (the modules' indexes) in ${((performance.now() - migrateStart) / 1000).toFixed(0)} s`);
  const server = await startService('.', 'scale', database.url, { logLevel: 'warn' });
  const other = values.compare
    ? await startService('.', 'scale-compare', values.compare, { logLevel: 'warn' })
    : undefined;
  try {
    // The administrator the service made at its start (ADMIN_PASSWORD): the seed's users are all `user`.
    let token = mintToken(database.url, 1, serviceEnv(database.url, 0));
    /** GET `path`, or POST `body` as JSON (GraphQL); an error status or a GraphQL error throws. */
    const get = async (path: string, payload?: unknown, base = server.url) => {
      const res = await fetch(`${base}${path}`, {
        method: payload === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      const body = (await res.json()) as {
        pagination?: { nextCursor?: string | null; total?: number };
        nextCursor?: string | null;
        errors?: unknown;
      };
      if (res.status !== 200 || body.errors) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    };
    const admins = (await get('/api/users?role=admin&limit=1&count=none')) as unknown as { data: { id: number }[] };
    token = mintToken(database.url, admins.data[0]!.id, serviceEnv(database.url, 0));
    /** The median time of `path` on each service: with `--compare`, run by run in turn (A B, B A, ...). */
    const time = async (path: string, payload?: unknown): Promise<number[]> => {
      const bases = other ? [server.url, other.url] : [server.url];
      for (const base of bases) for (let i = 0; i < 5; i += 1) await get(path, payload, base);
      const times = bases.map((): number[] => []);
      for (let i = 0; i < RUNS; i += 1) {
        const order = i % 2 === 0 ? bases.keys() : [...bases.keys()].reverse();
        for (const side of order) {
          const start = performance.now();
          await get(path, payload, bases[side]);
          times[side]!.push(performance.now() - start);
        }
      }
      return times.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
    };
    const deepPage = Math.floor(USERS / 20);
    const cursorAt = async (query: string) => {
      const body = await get(`/api/users?${query}&limit=10&page=${deepPage}&count=none`);
      return encodeURIComponent(body.pagination!.nextCursor!);
    };
    const lastPage = Math.ceil(USERS / 10);
    const requests: ScaleRequest[] = [
      ['first page, exact total (counters)', '/api/users?page=1&limit=10'],
      [`GET /api/users/${Math.ceil(USERS / 2)}`, `/api/users/${Math.ceil(USERS / 2)}`],
      ['status=suspended, exact total (counters)', '/api/users?status=suspended'],
      ['sort=name&order=desc, exact total (counters)', '/api/users?sort=name&order=desc'],
      [`page ${deepPage} by offset`, `/api/users?page=${deepPage}&count=none`],
      [`the last page (${lastPage}) by offset`, `/api/users?page=${lastPage}&count=none`],
      [
        `the page after page ${deepPage} by cursor`,
        `/api/users?sort=id&count=none&cursor=${await cursorAt('sort=id')}`,
      ],
      [
        `sort=-createdAt, after page ${deepPage} by cursor`,
        `/api/users?sort=-createdAt&count=none&cursor=${await cursorAt('sort=-createdAt')}`,
      ],
      [
        `sort=age, after page ${deepPage} by cursor`,
        `/api/users?sort=age&count=none&cursor=${await cursorAt('sort=age')}`,
      ],
      ['age[gte]=30&age[lt]=40, count=estimated', '/api/users?age[gte]=30&age[lt]=40&count=estimated'],
      ['age[null]=true, count=estimated', '/api/users?age[null]=true&count=estimated'],
      ['name[contains]=smith, count=estimated', '/api/users?name[contains]=smith&count=estimated'],
      ['emailVerified=false, count=estimated', '/api/users?emailVerified=false&count=estimated'],
      [
        'createdAt[gte]=2026-01-01T00:00:00Z, count=estimated',
        '/api/users?createdAt[gte]=2026-01-01T00:00:00Z&count=estimated',
      ],
      // The same range in its own field's order (at a million users it keeps the newest half, which the id
      // order reaches only after the older half: docs/QUERYING.md, "Not built yet").
      [
        'createdAt[gte]=2026-01-01T00:00:00Z&sort=createdAt, count=estimated',
        '/api/users?createdAt[gte]=2026-01-01T00:00:00Z&sort=createdAt&count=estimated',
      ],
      ['role[in]=admin,user&sort=-age, count=none', '/api/users?role[in]=admin,user&sort=-age&count=none'],
      ['age[gte]=30 with the exact count (rows counted)', '/api/users?age[gte]=30'],
      ...(Number(values['posts-per-user']) > 0 ? await postRequests(get, USERS) : []),
    ];
    // A post in the middle of the table; every post of the seed has --comments-per-post comments.
    const posts = USERS * Number(values['posts-per-user']);
    if (posts > 0 && Number(values['comments-per-post']) > 0)
      requests.push(...commentRequests(Math.ceil(posts / 2), 2));
    const orders = Number(values.orders);
    if (orders > 0) requests.push(...(await orderRequests(get, orders, Math.ceil(USERS / 3))));
    const products = Number(values.products);
    if (products > 0) requests.push(...(await productRequests(get, products)));
    requests.push(...(await graphqlRequests(get, USERS, posts > 0)));
    const heading = `| request (${dialect}, ${USERS.toLocaleString('en')} users) | median ms |`;
    console.log(other ? `${heading} compared, median ms | compared / first |` : heading);
    console.log(other ? '|---|---|---|---|' : '|---|---|');
    for (const [label, path, payload] of requests) {
      const [first, compared] = await time(path, payload);
      const row = `| ${label} | ${first!.toFixed(1)} |`;
      console.log(compared === undefined ? row : `${row} ${compared.toFixed(1)} | ${(compared / first!).toFixed(2)} |`);
    }
  } finally {
    await server.stop();
    await other?.stop();
  }
} finally {
  if (values.keep) console.error(`kept the database: ${database.url}`);
  else await database.drop();
}

/** The posts lists' requests (docs/QUERYING.md): a filter, a sort, `search`, a deep page by cursor, the totals. */
async function postRequests(
  get: (path: string) => Promise<{ nextCursor?: string | null; pagination?: { nextCursor?: string | null } }>,
  users: number,
): Promise<ScaleRequest[]> {
  const author = Math.ceil(users / 2);
  /** A cursor 200 pages of 100 deep into GET /posts in `query`'s order, reached by key. */
  const deepCursor = async (query: string) => {
    let body = await get(`/api/posts?limit=100&${query}`);
    for (let page = 1; page < 200 && body.nextCursor; page += 1) {
      body = await get(`/api/posts?limit=100&${query}&cursor=${encodeURIComponent(body.nextCursor)}`);
    }
    return encodeURIComponent(body.nextCursor!);
  };
  return [
    ["GET /api/posts, first page (the seed's cursor list)", '/api/posts'],
    ['GET /api/posts?count=exact (counters)', '/api/posts?count=exact'],
    [`GET /api/posts?authorId=${author}&count=exact (counters)`, `/api/posts?authorId=${author}&count=exact`],
    [`GET /api/users/${author}/posts?sort=title`, `/api/users/${author}/posts?sort=title`],
    ['GET /api/posts?sort=title', '/api/posts?sort=title'],
    [
      'GET /api/posts?sort=-createdAt, 20,000 posts deep by cursor',
      `/api/posts?sort=-createdAt&cursor=${await deepCursor('sort=-createdAt')}`,
    ],
    ['GET /api/posts?title[contains]=schema&count=estimated', '/api/posts?title[contains]=schema&count=estimated'],
    ['GET /api/posts?search=latency', '/api/posts?search=latency'],
    ['GET /api/posts?include=author,comments.author', '/api/posts?include=author,comments.author'],
    [
      `GET /api/posts?authorId[in]=${author},${author + 1}&count=estimated`,
      `/api/posts?authorId[in]=${author},${author + 1}&count=estimated`,
    ],
    [
      'GET /api/posts?createdAt[gte]=2026-06-01T00:00:00Z&sort=createdAt',
      '/api/posts?createdAt[gte]=2026-06-01T00:00:00Z&sort=createdAt',
    ],
  ];
}
