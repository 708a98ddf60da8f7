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
 * The first run moves every other post and product (but those in an order) into the trash (`trash_items`, as a deletion writes it:
 * the row as JSON, its deletion's id, time and actor; the live rows deleted, so the counters and search
 * documents follow by their triggers) and keeps a copy of the trash beside it (`bench_trash_copy`). Then, in
 * alternating order each round, it times the states of the same live data: the trash full (half a million
 * posts and 60,000 products), the trash empty (truncated), and empty again (the same state twice: the spread
 * any difference must stand out of), each by running bench/queries-scale.ts
 * (`--reuse`) and bench/search-scale.ts (without the peers' queries) as they are, and prints each request's
 * median over the rounds in each state and the ratios. The database is left in place (drop it by hand).
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
const URL_ = values.url;
const client = new pg.Client({ connectionString: URL_ });
await client.connect();
const load = () =>
  loadAverage()
    .map((n) => n.toFixed(2))
    .join(', ');

/** Moves every other post and product (but those in an order) into the trash once, and keeps a copy of what it moved. */
async function fillTrashOnce(): Promise<void> {
  const kept = await client.query(`select to_regclass('bench_trash_copy') as t`);
  if (kept.rows[0].t !== null) return;
  // A product in an order cannot be deleted (its order items point to it): those stay live.
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
  await client.query('create table bench_trash_copy as select * from trash_items');
  await client.query('commit');
  await client.query('vacuum analyze');
}

const counts = async () =>
  (
    await client.query(`select (select count(*) from trash_items)::int as trash, (select count(*) from posts)::int as
      posts, (select count(*) from products)::int as products`)
  ).rows[0] as { trash: number; posts: number; products: number };

/**
 * The trash full or empty; then a checkpoint and a pause, so that writing half a million rows does not go on
 * (as the checkpointer's and the background writer's I/O) into the measurement that follows.
 */
async function setTrash(state: State): Promise<void> {
  await client.query('truncate trash_items');
  if (state === 'full') await client.query('insert into trash_items select * from bench_trash_copy');
  await client.query('vacuum analyze trash_items');
  await client.query('checkpoint');
  await new Promise((resolve) => setTimeout(resolve, 5000));
}

/** `| label | median |` rows of a child benchmark's Markdown output, by label. */
function runChild(script: string, args: string[]): Map<string, number> {
  const result = spawnSync(NODE, [script, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${script} failed (${result.status}): ${result.stderr.slice(-3000)}`);
  const rows = new Map<string, number>();
  for (const line of result.stdout.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const value = Number(cells[2]);
    if (cells.length >= 4 && cells[1] && !cells[1].startsWith('request') && Number.isFinite(value) && cells[2] !== '')
      rows.set(`${script.includes('search') ? 'search' : 'lists'}: ${cells[1]}`, value);
  }
  return rows;
}

await fillTrashOnce();
// The lists' deep pages are computed from the live count (the same in both states).
const liveProducts = String((await counts()).products);
/** `control`: the trash empty again, measured like the others, so that the same state's spread is shown beside. */
type State = 'full' | 'empty' | 'control';
const STATES: State[] = ['full', 'empty', 'control'];
const samples = {
  full: new Map<string, number[]>(),
  empty: new Map<string, number[]>(),
  control: new Map<string, number[]>(),
};
const loads: string[] = [];
const sizes: Record<string, unknown> = {};
for (let round = 0; round < Number(values.rounds); round += 1) {
  for (const state of round % 2 === 0 ? STATES : [...STATES].reverse()) {
    await setTrash(state);
    sizes[state] = await counts();
    loads.push(load());
    const lists = runChild('bench/queries-scale.ts', [
      '--reuse',
      URL_,
      '--users',
      values.users,
      '--posts-per-user',
      values['posts-per-user'],
      '--products',
      liveProducts,
      '--orders',
      values.orders,
      '--runs',
      values.runs,
    ]);
    const searches = runChild('bench/search-scale.ts', ['--url', URL_, '--runs', values.runs, '--peer-runs', '0']);
    for (const [label, ms] of [...lists, ...searches]) {
      samples[state].set(label, [...(samples[state].get(label) ?? []), ms]);
    }
    console.error(`round ${round + 1}, trash ${state}: ${lists.size + searches.size} requests timed`);
  }
}
await client.end();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`live and trash: ${JSON.stringify(sizes)}`);
console.log('| request | trash empty, median ms | trash full, median ms | full / empty | empty again / empty |');
console.log('|---|---:|---:|---:|---:|');
const ratios: number[] = [];
const controls: number[] = [];
for (const [label, empty] of samples.empty) {
  const full = samples.full.get(label);
  const control = samples.control.get(label);
  if (!full || !control) continue;
  const ratio = median(full) / median(empty);
  const same = median(control) / median(empty);
  ratios.push(ratio);
  controls.push(same);
  console.log(
    `| ${label} | ${median(empty).toFixed(1)} | ${median(full).toFixed(1)} | ${ratio.toFixed(2)} | ${same.toFixed(2)} |`,
  );
}
const range = (xs: number[]) =>
  `from ${Math.min(...xs).toFixed(2)} to ${Math.max(...xs).toFixed(2)}, median ${median(xs).toFixed(2)}`;
console.log(
  `\n${ratios.length} requests; full / empty ${range(ratios)}; empty again / empty (the same state) ${range(controls)}; ` +
    `medians of ${values.rounds} rounds in alternating order, ${values.runs} runs each after 5 warm-ups; ` +
    `load average (1, 5, 15 min) at each state's start: ${loads.join(' | ')}`,
);
