/**
 * Issue 74's speed line for the admin console: on a database of 1 M products, each list screen shows its
 * first page in under 1 s, timed in the browser (Debian's chromium through playwright-core, as the
 * console's browser tests drive it). Not in `npm test`: it seeds a million products.
 *
 *   node bench/console-scale.ts [--products 1000000] [--users 10000] [--posts-per-user 1]
 *                               [--comments-per-post 1] [--orders 10000] [--runs 5] [--keep] [--reuse URL]
 *
 * A fresh PostgreSQL database is seeded by the project's own `seed` command (its batched inserts keep the
 * counters and search documents as the service's writes do) and migrated (`migrate`: the modules' indexes);
 * the service starts on it as a user runs it (bench/suite's `startService`: production mode), and the
 * database is dropped at the end (`--keep` leaves it, its URL on stderr; `--reuse URL` times one kept so).
 *
 * Each screen is timed two ways, `--runs` times each after one warm-up, and the medians printed as Markdown
 * for bench/RESULTS.md with the load average before and after:
 * - **in the console**: the dashboard freshly loaded (so nothing of the list is cached), then from the click
 *   on the screen's menu item until its first row is visible;
 * - **opened by its address**: from `page.goto('/admin/#/<screen>')` (the page, its scripts from the
 *   browser's cache, `/api/v2/me`, the list) until its first row is visible.
 */
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { ensureAdminBuilt, signIn } from '../test/support/admin-browser.ts';
import { launchChromium } from '../test/support/chromium.ts';
import { adminTokenOf, serviceEnv, startService } from './suite/alternate.ts';
import { createBenchDatabase } from './suite/databases.ts';
import { loadAverage, runCli } from './suite/processes.ts';

const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '1000000' },
    users: { type: 'string', default: '10000' },
    'posts-per-user': { type: 'string', default: '1' },
    'comments-per-post': { type: 'string', default: '1' },
    orders: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
/** The list screens of DECISIONS §20 that hold seeded rows, by their menu names. */
const SCREENS = ['Products', 'Users', 'Posts', 'Comments', 'Orders', 'Customers', 'Events'];
const ROW = '.RaDatagrid-row';

const load = () =>
  loadAverage()
    .map((n) => n.toFixed(2))
    .join(', ');
const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

const database = values.reuse ? { url: values.reuse, drop: async () => {} } : await createBenchDatabase('postgres');
try {
  if (!values.reuse) {
    const seedStart = performance.now();
    runCli(
      [
        'seed',
        '--users',
        values.users,
        '--posts-per-user',
        values['posts-per-user'],
        '--comments-per-post',
        values['comments-per-post'],
        '--likes-per-comment',
        '0',
        '--products',
        values.products,
        '--orders',
        values.orders,
      ],
      { DATABASE_URL: database.url, DEMO_DATA: 'false' },
    );
    console.error(`seeded ${Number(values.products).toLocaleString('en')} products in ${seconds(seedStart)}`);
  }
  // The seed applies the core's migrations; the modules' (their indexes) would run at the service's first
  // start, longer than a start may take at this size.
  const migrateStart = performance.now();
  runCli(['migrate'], { DATABASE_URL: database.url, DEMO_DATA: 'false' });
  console.error(`migrated in ${seconds(migrateStart)}`);

  await ensureAdminBuilt();
  const server = await startService('.', 'console-scale', database.url, { logLevel: 'warn' });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // The administrator the service made at its start (serviceEnv's ADMIN_PASSWORD).
    await signIn(page, server.url, 'admin@example.com', serviceEnv(database.url, 0).ADMIN_PASSWORD);
    const token = await adminTokenOf(server.url);
    const hasRows = async (screen: string) => {
      const answer = await fetch(`${server.url}/api/v2/${screen.toLowerCase()}?limit=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return answer.ok && ((await answer.json()) as { data: unknown[] }).data.length > 0;
    };

    const loadBefore = load();
    const rows: string[] = [];
    for (const screen of SCREENS) {
      if (!(await hasRows(screen))) {
        rows.push(`| ${screen} | – | – | 0 (no rows seeded) |`);
        continue;
      }
      const inConsole: number[] = [];
      const byAddress: number[] = [];
      for (let run = 0; run <= RUNS; run += 1) {
        const clicked = await timeFromMenu(page, server.url, screen);
        const opened = await timeByAddress(page, server.url, screen);
        if (run === 0) continue; // the warm-up
        inConsole.push(clicked);
        byAddress.push(opened);
      }
      rows.push(`| ${screen} | ${median(inConsole).toFixed(0)} | ${median(byAddress).toFixed(0)} | ${RUNS} |`);
      console.error(
        `${screen}: ${inConsole.map((t) => t.toFixed(0)).join(', ')} / ${byAddress.map((t) => t.toFixed(0)).join(', ')}`,
      );
    }
    const products = await fetch(`${server.url}/api/v2/products?limit=1&count=exact`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const total = ((await products.json()) as { pagination: { total: number } }).pagination.total;
    console.log(
      `| screen (PostgreSQL, ${total.toLocaleString('en')} products) | median ms, from the menu | median ms, by its address | runs |`,
    );
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(`\nLoad average (1, 5, 15 min): before ${loadBefore}; after ${load()}.`);
  } finally {
    await browser.close();
    await server.stop();
  }
} finally {
  if (values.keep) console.error(`kept the database: ${database.url}`);
  else await database.drop();
}

type PageGlobal = {
  document: { querySelector(selector: string): unknown };
  requestAnimationFrame(callback: () => void): void;
};

/** In the page: `performance.now()` at the first animation frame where a list row is in the document. */
function firstRow(selector: string): Promise<number> {
  const page = globalThis as unknown as PageGlobal;
  return new Promise((resolve) => {
    const check = () =>
      page.document.querySelector(selector) ? resolve(performance.now()) : page.requestAnimationFrame(check);
    check();
  });
}

/**
 * The dashboard freshly loaded (nothing of the list cached), then, timed in the page (no driver round trip
 * inside the figure), from the menu item's click until a row is in the document at an animation frame.
 */
async function timeFromMenu(page: Page, url: string, screen: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(`${url}/admin/#/`);
  await page.getByRole('heading', { name: /Orders by month/ }).waitFor({ timeout: 30_000 });
  const item = page.getByRole('menuitem', { name: screen });
  await item.waitFor();
  const start = await item.evaluate((element) => {
    const at = performance.now();
    (element as unknown as { click(): void }).click();
    return at;
  });
  return (await page.evaluate(firstRow, ROW)) - start;
}

/** The screen opened by its address: from the navigation's start (the page's time origin) until a row shows. */
async function timeByAddress(page: Page, url: string, screen: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(`${url}/admin/#/${screen.toLowerCase()}`, { waitUntil: 'commit' });
  return page.evaluate(firstRow, ROW);
}
