/**
 * Issue 55's speed lines: full-text search, facets and aggregates at scale (PostgreSQL), against a
 * database seeded beforehand with the project's seed command, e.g.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_search_scale npm run seed -- --users 1000000 \
 *     --posts-per-user 5 --comments-per-post 0 --likes-per-comment 0 --products 1000000 --orders 1000000
 *   node bench/search-scale.ts --url postgres://postgres@127.0.0.1:5432/cs_search_scale [--runs 30]
 *
 * Starts the service on it as a user runs it (NODE_ENV=production, rate limit raised), mints an
 * administrator's and a customer's token, and times each request one at a time: the median (and p90)
 * of `--runs` answers after 5 warm-ups, beside its target. Then the peers' way on the same data (an
 * `ILIKE '%q%'` over the same fields, with a count, as Strapi's `_q` or Medusa's `q`), run directly
 * with `pg`, and its ratio to the service's search of the same word. Prints Markdown for
 * bench/RESULTS.md with the load average before and after. The database is left in place.
 */
import { parseArgs } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { serviceEnv, startService } from './suite/alternate.ts';
import { mintToken } from './suite/databases.ts';
import { loadAverage } from './suite/processes.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/cs_search_scale' },
    runs: { type: 'string', default: '30' },
    'peer-runs': { type: 'string', default: '5' },
    only: { type: 'string' },
    /** A second database of the same data: each request timed on both, run by run in turn (trash-scale.ts). */
    compare: { type: 'string' },
    /**
     * The second service from another checkout (built), on `--compare` or else the same database: an older
     * commit's statements timed against today's on one data set (its migrations must be a subset of these).
     */
    'compare-tree': { type: 'string' },
  },
});
const URL_ = values.url;
const RUNS = Number(values.runs);
const PEER_RUNS = Number(values['peer-runs']);

type Body = { pagination?: { nextCursor?: string | null }; nextCursor?: string | null; data?: unknown[] };
/** A label, a path, the target median in ms, and the token it is sent with. */
type Row = { label: string; path: string | (() => Promise<string>); target: number; as: 'admin' | 'customer' };

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
const p90 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)]!;
/** `--only a,b`: the requests whose label starts with one of them (`products`, `posts`, `orders/`). */
const wanted = (label: string) => !values.only || values.only.split(',').some((start) => label.startsWith(start));
const q = (text: string) => `q=${encodeURIComponent(text)}`;
const load = () =>
  loadAverage()
    .map((n) => n.toFixed(2))
    .join(', ');

/** `--url sqlite:FILE` measures SQLite (the same requests; the peers' way is PostgreSQL's only). */
const SQLITE = URL_.startsWith('sqlite:');
const client = SQLITE ? undefined : new pg.Client({ connectionString: URL_ });
await client?.connect();
const lite = SQLITE ? new DatabaseSync(URL_.slice('sqlite:'.length), { readOnly: true }) : undefined;
const one = async <T>(text: string, params: unknown[] = []) =>
  (lite ? lite.prepare(text).get(...(params as string[])) : (await client!.query(text, params)).rows[0]) as T;
const DB_NAME = SQLITE ? 'SQLite' : 'PostgreSQL';

const server = await startService('.', 'search-scale', URL_, { logLevel: 'warn' });
const other =
  values.compare || values['compare-tree']
    ? await startService(values['compare-tree'] ?? '.', 'search-scale-compare', values.compare ?? URL_, {
        logLevel: 'warn',
      })
    : undefined;
const loadBefore = load();
try {
  const env = serviceEnv(URL_, 0);
  const { id: adminId } = await one<{ id: number }>(`select id from users where role = 'admin' order by id limit 1`);
  // The customer with the most orders: their own orders are the most a customer's aggregate reads.
  const { customer, orders: customerOrders } = await one<{ customer: number; orders: number }>(
    `select customer_id as customer, count(*) as orders from orders group by customer_id
     order by count(*) desc, customer_id limit 1`,
  );
  const tokens = { admin: mintToken(URL_, adminId, env), customer: mintToken(URL_, customer, env) };

  const get = async (path: string, as: Row['as'], base = server.url): Promise<Body> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tokens[as]}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Body;
  };
  /** The times of `row` on the service, and with `--compare` on the other too, run by run in turn. */
  const timeBoth = async (row: Row): Promise<number[][]> => {
    const path = typeof row.path === 'string' ? row.path : await row.path();
    const bases = other ? [server.url, other.url] : [server.url];
    for (const base of bases) for (let i = 0; i < 5; i += 1) await get(path, row.as, base);
    const times = bases.map((): number[] => []);
    for (let i = 0; i < RUNS; i += 1) {
      for (const side of i % 2 === 0 ? bases.keys() : [...bases.keys()].reverse()) {
        const start = performance.now();
        await get(path, row.as, bases[side]);
        times[side]!.push(performance.now() - start);
      }
    }
    return times;
  };
  const cursorOf = async (path: string) => {
    const body = await get(path, 'admin');
    const cursor = body.pagination?.nextCursor ?? body.nextCursor;
    if (!cursor) throw new Error(`${path}: no next cursor`);
    return `${path}&cursor=${encodeURIComponent(cursor)}`;
  };

  const p = '/api/v2/products';
  const est = 'count=estimated';
  const rows: Row[] = [
    // Products: a common word (about one product in ten), two words, a rare pair.
    { label: 'products q=steel', path: `${p}?${q('steel')}&${est}`, target: 20, as: 'customer' },
    { label: 'products q=steel, count=none', path: `${p}?${q('steel')}&count=none`, target: 20, as: 'customer' },
    { label: 'products q=walnut chair', path: `${p}?${q('walnut chair')}&${est}`, target: 20, as: 'customer' },
    {
      label: 'products q=walnut chair, count=none',
      path: `${p}?${q('walnut chair')}&count=none`,
      target: 20,
      as: 'customer',
    },
    {
      label: 'products q="brushed steel" (phrase)',
      path: `${p}?${q('"brushed steel"')}&${est}`,
      target: 20,
      as: 'customer',
    },
    {
      label: 'products q=steel&category=category-03&in_stock=true&price[lt]=50',
      path: `${p}?${q('steel')}&category=category-03&in_stock=true&price[lt]=50&${est}`,
      target: 20,
      as: 'customer',
    },
    {
      label: 'products q=steel&sort=-price',
      path: `${p}?${q('steel')}&sort=-price&${est}`,
      target: 20,
      as: 'customer',
    },
    {
      label: 'products q=steel, 2nd page by cursor (relevance)',
      path: () => cursorOf(`${p}?${q('steel')}&${est}`),
      target: 20,
      as: 'customer',
    },
    {
      label: 'products q=steel&sort=-price, 2nd page by cursor',
      path: () => cursorOf(`${p}?${q('steel')}&sort=-price&${est}`),
      target: 20,
      as: 'customer',
    },
    { label: 'products q=steel, count=exact', path: `${p}?${q('steel')}&count=exact`, target: 0, as: 'customer' },
    {
      label: 'products q=steel&highlight=name,description&facets=category',
      path: `${p}?${q('steel')}&highlight=name,description&facets=category&${est}`,
      target: 50,
      as: 'customer',
    },
    {
      label: 'products q=walnut chair&highlight=name,description&facets=category',
      path: `${p}?${q('walnut chair')}&highlight=name,description&facets=category&${est}`,
      target: 50,
      as: 'customer',
    },
    // Posts (5 M): a common and a rarer word, two words, a cursor's page.
    { label: 'posts q=latency', path: `/api/v2/posts?${q('latency')}&${est}`, target: 20, as: 'customer' },
    {
      label: 'posts q=latency, count=exact',
      path: `/api/v2/posts?${q('latency')}&count=exact`,
      target: 0,
      as: 'customer',
    },
    {
      label: 'posts q=latency, count=none',
      path: `/api/v2/posts?${q('latency')}&count=none`,
      target: 20,
      as: 'customer',
    },
    { label: 'posts q=garden coffee', path: `/api/v2/posts?${q('garden coffee')}&${est}`, target: 20, as: 'customer' },
    {
      label: 'posts q=latency, 2nd page by cursor',
      path: () => cursorOf(`/api/v2/posts?${q('latency')}&${est}`),
      target: 20,
      as: 'customer',
    },
    // Aggregates: a customer's own orders, then an administrator's over every order and product.
    ...aggregateRows(),
  ];
  /** The peers' way: each word `ILIKE '%word%'` in any of the fields, every word required, counted. */
  const peers: [table: 'products' | 'posts', words: string[], ours: string][] = [
    ['products', ['steel'], 'products q=steel, count=exact'],
    ['products', ['walnut', 'chair'], 'products q=walnut chair'],
    ['posts', ['latency'], 'posts q=latency, count=exact'],
    ['posts', ['garden', 'coffee'], 'posts q=garden coffee'],
  ];
  const FIELDS = { products: ['name', 'category', 'description'], posts: ['title', 'content'] };

  const medians = new Map<string, number>();
  const heading = `| request (${DB_NAME}; customer ${customer} has ${customerOrders} orders) | median ms | p90 ms | target | met |`;
  console.log(other ? `${heading} compared, median ms | compared / first |` : heading);
  console.log(other ? '|---|---:|---:|---|---|---:|---:|' : '|---|---:|---:|---|---|');
  for (const row of rows) {
    if (!wanted(row.label)) continue;
    const [times, compared] = (await timeBoth(row)) as [number[], number[] | undefined];
    medians.set(`${row.label} (${row.as})`, median(times));
    const target = row.target > 0 ? `< ${row.target} ms` : '–';
    const met = row.target > 0 ? (median(times) < row.target ? 'yes' : '**no**') : '–';
    const line = `| ${row.label} (${row.as}) | ${median(times).toFixed(1)} | ${p90(times).toFixed(1)} | ${target} | ${met} |`;
    const ratio = compared && (median(compared) / median(times)).toFixed(2);
    console.log(compared ? `${line} ${median(compared).toFixed(1)} | ${ratio} |` : line);
  }

  console.log(
    "\n| the peers' way (direct SQL, count + first page by id) | matches | median ms | ours | ours ms | ratio |",
  );
  console.log('|---|---:|---:|---|---:|---:|');
  for (const [table, words, ours] of peers) {
    if (!wanted(ours) || !client || PEER_RUNS === 0) continue;
    const where = words
      .map((_, i) => `(${FIELDS[table].map((field) => `${field} ilike $${i + 1}`).join(' or ')})`)
      .join(' and ');
    const patterns = words.map((word) => `%${word}%`);
    const label = `${table}: ${words.map((word) => `'%${word}%'`).join(' and ')} ILIKE in ${FIELDS[table].join(', ')}`;
    const times: number[] = [];
    let matches = 0;
    for (let i = 0; i < PEER_RUNS + 1; i += 1) {
      const start = performance.now();
      const counted = await one<{ n: number }>(`select count(*)::int as n from ${table} where ${where}`, patterns);
      await client.query(`select * from ${table} where ${where} order by id limit 20`, patterns);
      if (i > 0) times.push(performance.now() - start);
      matches = counted.n;
    }
    const mine = medians.get(`${ours} (customer)`);
    const ratio = mine ? `${(median(times) / mine).toFixed(1)}×` : '–';
    console.log(
      `| ${label} | ${matches.toLocaleString('en')} | ${median(times).toFixed(0)} | ${ours} | ${mine?.toFixed(1) ?? '–'} | ${ratio} |`,
    );
  }
} finally {
  await server.stop();
  await other?.stop();
  await client?.end();
  lite?.close();
  console.log(`\nload average (1, 5, 15 min) before: ${loadBefore}; after: ${load()}; ${RUNS} runs after 5 warm-ups`);
}

/** The aggregate requests: a customer's (their own orders), and an administrator's over everything. */
function aggregateRows(): Row[] {
  const o = '/api/v2/orders/aggregate';
  const pa = '/api/v2/products/aggregate';
  const month = 'groupBy=createdAt:month&measures=sum(amount)';
  return [
    {
      label: 'orders/aggregate groupBy=status',
      path: `${o}?groupBy=status&measures=sum(amount)`,
      target: 50,
      as: 'customer',
    },
    { label: 'orders/aggregate groupBy=createdAt:month', path: `${o}?${month}`, target: 50, as: 'customer' },
    {
      label: 'orders/aggregate groupBy=status',
      path: `${o}?groupBy=status&measures=sum(amount)`,
      target: 500,
      as: 'admin',
    },
    { label: 'orders/aggregate groupBy=createdAt:month', path: `${o}?${month}`, target: 500, as: 'admin' },
    {
      label: 'products/aggregate groupBy=category',
      path: `${pa}?groupBy=category&measures=sum(stock),avg(price)`,
      target: 500,
      as: 'admin',
    },
    {
      label: 'products/aggregate groupBy=createdAt:month',
      path: `${pa}?groupBy=createdAt:month&measures=sum(stock)`,
      target: 500,
      as: 'admin',
    },
    {
      label: 'products/aggregate category=category-03&groupBy=createdAt:month',
      path: `${pa}?category=category-03&groupBy=createdAt:month&measures=sum(stock)`,
      target: 500,
      as: 'customer',
    },
    {
      label: 'products/aggregate q=walnut chair&groupBy=category',
      path: `${pa}?${q('walnut chair')}&groupBy=category&measures=avg(price)`,
      target: 500,
      as: 'customer',
    },
  ];
}
