/**
 * Issue 72's trash line (DECISIONS §19 "Cost"): with a trash as large as the live data, every list of the
 * queries benchmark and every search of §14 keeps its time within 10 %. Against a PostgreSQL database seeded
 * beforehand with the project's seed, e.g.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/cs_trash_scale npm run seed -- --users 100000 \
 *     --posts-per-user 10 --comments-per-post 0 --likes-per-comment 0 --products 200000 --orders 50000
 *   node bench/trash-scale.ts --url postgres://postgres@127.0.0.1:5432/cs_trash_scale --users 100000 \
 *     --posts-per-user 10 --orders 50000 [--rounds 3] [--runs 11]
 *
 * The first run moves every other post and product (but those in an order) into the trash (`trash_items`, as
 * a deletion writes it: the row as JSON, its deletion's id, time and actor; the live rows deleted, so the
 * counters and search documents follow by their triggers), then copies the database (`<name>_empty`) and
 * empties the copy's trash: two databases of the same live data, one with the trash and one without. Each
 * round runs bench/queries-scale.ts and bench/search-scale.ts (without the peers' queries) with `--compare`:
 * a service on each database, every request timed on both run by run in turn. A control pair (two services
 * on the database without a trash) gives the spread of the same state, in alternating order with the
 * measured pair. Prints each request's median ratio over the rounds. Both databases are left in place.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadAverage, NODE } from './suite/processes.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/cs_trash_scale' },
    users: { type: 'string', default: '100000' },
    'posts-per-user': { type: 'string', default: '10' },
    orders: { type: 'string', default: '50000' },
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string', default: '11' },
  },
});
const FULL = values.url;
const EMPTY = `${FULL}_empty`;
const nameOf = (url: string) => new URL(url).pathname.slice(1);
const load = () =>
  loadAverage()
    .map((n) => n.toFixed(2))
    .join(', ');

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every other post and product (but those in an order: order items point to them) moved into the trash, once. */
async function fillTrashOnce(client: pg.Client): Promise<void> {
  if ((await client.query(`select exists (select from trash_items) as full`)).rows[0].full) return;
  const move = async (resource: string, table: string, rank: number, owner: string, where = '') => {
    await client.query(
      `insert into trash_items (resource, item_key, item_id, owner_id, parent_id, deletion_id, rank, deleted_at,
         deleted_by_type, deleted_by_id, row_data)
       select '${resource}', id::text, id, ${owner}, ${owner}, 'bench-${resource}-' || id, ${rank}, now(), 'user', 1,
         row_to_json(t)::text
       from ${table} as t where id % 2 = 0 ${where}`,
    );
    await client.query(`delete from ${table} as t where id % 2 = 0 ${where}`);
  };
  await client.query('begin');
  await move('post', 'posts', 3, 'author_id');
  await move('product', 'products', 2, 'null', 'and not exists (select from order_items where product_id = t.id)');
  await client.query('commit');
  await client.query('vacuum analyze');
}

const sizes = (client: pg.Client) =>
  client
    .query(
      `select (select count(*) from trash_items)::int as trash, (select count(*) from posts)::int as posts,
        (select count(*) from products)::int as products`,
    )
    .then((result) => result.rows[0] as { trash: number; posts: number; products: number });

await withClient(FULL, fillTrashOnce);
const admin = FULL.replace(/\/[^/]*$/, '/postgres');
await withClient(admin, async (client) => {
  const exists = await client.query('select 1 from pg_database where datname = $1', [nameOf(EMPTY)]);
  if (exists.rowCount === 0) await client.query(`create database "${nameOf(EMPTY)}" template "${nameOf(FULL)}"`);
});
await withClient(EMPTY, async (client) => {
  await client.query('truncate trash_items');
  await client.query('vacuum analyze');
});
const [full, empty] = [await withClient(FULL, sizes), await withClient(EMPTY, sizes)];
if (full.posts !== empty.posts || full.products !== empty.products) throw new Error('the live data differ');

/** Each request's first median, compared median and ratio, from a child's Markdown table (by label). */
function runChild(script: string, args: string[]): Map<string, [number, number, number]> {
  const result = spawnSync(NODE, [script, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${script} failed (${result.status}): ${result.stderr.slice(-3000)}`);
  const rows = new Map<string, [number, number, number]>();
  for (const line of result.stdout.split('\n')) {
    const cells = line
      .split('|')
      .map((cell) => cell.trim())
      .slice(1, -1);
    const [first, compared, ratio] = [Number(cells[1]), Number(cells.at(-2)), Number(cells.at(-1))];
    if (cells.length >= 4 && !cells[0]!.startsWith('request') && Number.isFinite(ratio) && cells.at(-1) !== '')
      rows.set(`${script.includes('search') ? 'search' : 'lists'}: ${cells[0]}`, [first, compared, ratio]);
  }
  return rows;
}

const listsArgs = ['--users', values.users, '--posts-per-user', values['posts-per-user']];
const listsExtra = ['--products', String(full.products), '--orders', values.orders, '--runs', values.runs];
/** One pair: the lists and the searches, each request on `first` and `compared` in turn. */
function pair(first: string, compared: string) {
  return new Map([
    ...runChild('bench/queries-scale.ts', ['--reuse', first, '--compare', compared, ...listsArgs, ...listsExtra]),
    ...runChild('bench/search-scale.ts', [
      '--url',
      first,
      '--compare',
      compared,
      '--runs',
      values.runs,
      '--peer-runs',
      '0',
    ]),
  ]);
}

const measured = new Map<string, number[]>();
const control = new Map<string, number[]>();
const emptyMs = new Map<string, number[]>();
const loads: string[] = [];
const add = (into: Map<string, number[]>, label: string, value: number) =>
  into.set(label, [...(into.get(label) ?? []), value]);
for (let round = 0; round < Number(values.rounds); round += 1) {
  const turns = [
    () => {
      // The trash's database second: `compared / first` is full / empty.
      for (const [label, [ms, , ratio]] of pair(EMPTY, FULL)) {
        add(measured, label, ratio);
        add(emptyMs, label, ms);
      }
    },
    () => {
      for (const [label, [, , ratio]] of pair(EMPTY, EMPTY)) add(control, label, ratio);
    },
  ];
  for (const turn of round % 2 === 0 ? turns : turns.reverse()) {
    loads.push(load());
    turn();
  }
  console.error(`round ${round + 1} of ${values.rounds} done`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`live and trash: with the trash ${JSON.stringify(full)}; without ${JSON.stringify(empty)}`);
console.log('| request | without the trash, median ms | with / without the trash | control: the same twice |');
console.log('|---|---:|---:|---:|');
const ratios: number[] = [];
const controls: number[] = [];
for (const [label, values_] of measured) {
  const same = control.get(label);
  if (!same) continue;
  ratios.push(median(values_));
  controls.push(median(same));
  console.log(
    `| ${label} | ${median(emptyMs.get(label)!).toFixed(1)} | ${median(values_).toFixed(2)} | ${median(same).toFixed(2)} |`,
  );
}
const range = (xs: number[]) =>
  `from ${Math.min(...xs).toFixed(2)} to ${Math.max(...xs).toFixed(2)}, median ${median(xs).toFixed(2)}`;
console.log(
  `\n${ratios.length} requests; with / without the trash ${range(ratios)}; the control ${range(controls)}; ` +
    `medians of ${values.rounds} rounds, ${values.runs} runs of each request on each side in turn after 5 ` +
    `warm-ups; load average (1, 5, 15 min) at each pair's start: ${loads.join(' | ')}`,
);
