/**
 * The server's memory after a newcomer's tour (issue 53): `node bench/newcomer-tour-memory.ts [--runs 3]
 * [--after 30] [--rest 3]` (Node 24: `node_modules/.bin/node` when the system's node is older).
 *
 * Each run starts the service exactly as `npm start` does (the `start` script's environment and node flags,
 * `serve`), in development with the demo data on a brand-new SQLite database in a temporary directory, on a free port,
 * LOG_LEVEL=warn; then tours it as a newcomer would: headless Chromium (Debian's, through playwright-core)
 * opens `/docs` and waits for the reference to render, opens `/graphiql` and runs its default query with the
 * run button (the page presets a demo token); a few dozen REST and GraphQL requests as a demo account and
 * the administrator (sign-in, lists, a post, a comment, GraphQL queries and a mutation); one `graphql-ws`
 * subscription that receives one event; one webhook endpoint, pointing to a receiver in this process, that
 * receives at least one delivery. The server's VmRSS and VmHWM (`/proc/<pid>/status`) are sampled every
 * 100 ms throughout. Printed per run: RSS at rest after start, the peak during the tour (VmHWM), RSS
 * `--after` seconds after the tour, the RSS after each step of the tour, and the load average; then the
 * medians and ranges over the runs.
 *
 * What a newcomer runs after `npm ci && npm start` is the compiled build (`npm ci` builds it): the script
 * asks the tree's own `bin/entry-point.js` which code `npm start` would run, and stops when that is the
 * TypeScript sources (a `dist/` older than a source: ~45 MB more, bench/RESULTS.md), unless `--build`
 * compiles the tree first (`npm run build`). `--tree DIR` measures another checkout (with its node_modules).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { freePort } from './suite/processes.ts';
import { serverArgs, serverEnv } from './suite/server-command.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    /** Seconds to wait after the tour before the last reading. */
    after: { type: 'string', default: '30' },
    /** Seconds after the server is ready before the reading at rest. */
    rest: { type: 'string', default: '3' },
    tree: { type: 'string', default: '.' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    /** Compile the tree (`npm run build`) when `npm start` would run its sources. */
    build: { type: 'boolean', default: false },
  },
});

const TREE = resolve(values.tree);

/** The code `npm start` runs in the tree: its `bin/entry-point.js` decides (the build, or the sources and why). */
async function startedCode(): Promise<{ url: string; warning?: string }> {
  const { entryPoint } = (await import(pathToFileURL(join(TREE, 'bin/entry-point.js')).href)) as {
    entryPoint: (root: URL) => { url: string; warning?: string };
  };
  return entryPoint(pathToFileURL(`${TREE}/`));
}

let code = await startedCode();
if (!code.url.includes('/dist/') && values.build) {
  const built = spawnSync(process.execPath, ['scripts/build.ts'], { cwd: TREE, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  code = await startedCode();
}
if (!code.url.includes('/dist/')) {
  console.error(
    `npm start would run the TypeScript sources here, not what \`npm ci && npm start\` runs: ${code.warning ?? code.url}\n` +
      'Compile first (`npm run build`, or --build).',
  );
  process.exit(1);
}
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const DEMO_EMAIL = 'alice@example.com';
const DEMO_PASSWORD = 'demo-password';
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'tour-admin-password';
const MB = 2 ** 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => (bytes / MB).toFixed(0);

function status(pid: number): { rss: number; hwm: number; anon: number; file: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM'), anon: field('RssAnon'), file: field('RssFile') };
}

interface Sample {
  t: number;
  step: string;
  rss: number;
  hwm: number;
}

interface RunFigures {
  rest: number;
  peak: number;
  after: number;
  restSplit: string;
  afterSplit: string;
  steps: { step: string; rss: number; hwm: number; ms: number }[];
  requested: string[];
  load: string;
  deliveries: number;
  code: string;
}

/** A local receiver for the webhook's deliveries: answers 204 and counts them. */
async function startReceiver(): Promise<{ server: Server; url: string; received: () => number; next: Promise<void> }> {
  let count = 0;
  let signal!: () => void;
  const next = new Promise<void>((r) => (signal = r));
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(204).end();
      signal();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/hook`, received: () => count, next };
}

async function run(index: number): Promise<RunFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'newcomer-tour-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...serverEnv(TREE),
    NODE_ENV: 'development',
    DEMO_DATA: 'true',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: `sqlite:${join(dir, 'content.db')}`,
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
  };
  delete env.JWT_SECRET;
  let log = '';
  const child = spawn(process.execPath, serverArgs(TREE), { cwd: TREE, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  const pid = child.pid!;

  const samples: Sample[] = [];
  let step = 'start';
  const start = performance.now();
  const sampler = setInterval(() => {
    try {
      samples.push({ t: performance.now() - start, step, ...status(pid) });
    } catch {
      // exited
    }
  }, 100);

  const steps: RunFigures['steps'] = [];
  let stepStart = performance.now();
  const mark = (name: string) => {
    const now = status(pid);
    steps.push({ step, rss: now.rss, hwm: now.hwm, ms: performance.now() - stepStart });
    step = name;
    stepStart = performance.now();
  };

  const receiver = await startReceiver();
  let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
  try {
    for (let i = 0; ; i += 1) {
      if (child.exitCode !== null || i > 600) throw new Error(`the server did not start:\n${log}`);
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    mark('ready');
    await sleep(Number(values.rest) * 1000);
    const atRest = status(pid);
    mark('browser launch');

    // The browser is its own processes; launched before the tour's first request so its start is not in it.
    browser = await chromium.launch({ executablePath: values.chromium, args: ARGS, timeout: 60_000 });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // Which of the pages' requests the memory follows: the server's RSS as each one finishes.
    const requested: string[] = [];
    page.on('requestfinished', (request) => {
      const { pathname } = new URL(request.url());
      requested.push(`${pathname.replace(/^(.{28}).+/, '$1…')} ${mb(status(pid).rss)}`);
    });
    mark('/docs');

    const docs = await page.goto(`${base}/docs`);
    if (docs?.status() !== 200) throw new Error(`/docs: ${docs?.status()}`);
    await page.getByRole('heading', { name: 'content-service REST API' }).waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    mark('/graphiql');

    const graphiql = await page.goto(`${base}/graphiql`);
    if (graphiql?.status() !== 200) throw new Error(`/graphiql: ${graphiql?.status()}`);
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    await page.locator('.graphiql-query-editor .CodeMirror-code').getByText('{').first().waitFor({ timeout: 30_000 });
    const answered = page.waitForResponse(
      (answer) =>
        new URL(answer.url()).pathname === '/graphql' &&
        !(answer.request().postData() ?? '').includes('IntrospectionQuery'),
      { timeout: 30_000 },
    );
    await page.locator('.graphiql-execute-button').click();
    const answer = await answered;
    const shown = (await answer.json()) as { data?: unknown; errors?: unknown };
    if (answer.status() !== 200 || shown.errors) throw new Error(`GraphiQL's query: ${JSON.stringify(shown)}`);
    await page.locator('.graphiql-response').getByText('"data"').first().waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    await context.close();
    mark('REST: / and openapi.json');

    let requests = 0;
    const call = async (method: string, path: string, token?: string, body?: unknown, expect = [200]) => {
      requests += 1;
      const response = await fetch(base + path, {
        method,
        headers: {
          accept: 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!expect.includes(response.status)) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    };
    const signIn = async (email: string, password: string) =>
      (await call('POST', '/api/v2/auth/token', undefined, { email, password })).access_token as string;
    const graphql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const body = await call('POST', '/graphql', token, { query, variables });
      if (body.errors) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
      return body.data as Record<string, unknown>;
    };

    await call('GET', '/', undefined, undefined, [200]);
    await call('GET', '/api/v2/openapi.json');
    mark('REST: sign-in ×2');
    const token = await signIn(DEMO_EMAIL, DEMO_PASSWORD);
    const admin = await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    const me = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string };
    mark('REST: reads');
    const posts = (await call('GET', '/api/v2/posts', token)).data as { id: number }[];
    await call('GET', '/api/v2/posts?limit=5&sort=-createdAt', token, undefined, [200, 400, 422]);
    await call('GET', `/api/v2/posts/${posts[0]!.id}`, token);
    await call('GET', `/api/v2/posts/${posts[0]!.id}/comments`, token);
    await call('GET', '/api/v2/products', token);
    await call('GET', '/api/v2/products?price[lt]=20', token);
    await call('GET', '/api/v2/products?limit=5&page=2', token, undefined, [200, 400, 422]);
    const products = (await call('GET', '/api/v2/products', token)).data as { id: number }[];
    await call('GET', `/api/v2/products/${products[0]!.id}`, token);
    await call('GET', '/api/v2/users', token);
    await call('GET', `/api/v2/users/${me.sub}`, token);
    await call('GET', `/api/v2/users/${me.sub}/posts`, token);
    await call('GET', '/api/v2/users', admin);
    await call('GET', '/api/v1/posts', token);
    mark('GraphQL');

    const postsQuery = '{ posts(limit: 5) { id title author { id name } comments { id text } } }';
    await graphql(token, postsQuery);
    await graphql(token, '{ users(limit: 5) { id name posts(limit: 3) { id title } } }');
    await graphql(token, 'query($id: ID!) { user(id: $id) { id name email } }', { id: me.sub });
    await graphql(admin, '{ users(limit: 10) { id name email } }');
    await graphql(token, postsQuery);
    requests += 5;
    mark('subscription + webhook');

    const endpoint = await call('POST', '/api/v2/webhooks', admin, { url: receiver.url, events: ['*'] }, [201]);
    await call('GET', '/api/v2/webhooks', admin);
    const ws = createClient({
      url: `${base.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      lazy: false,
    });
    let event: Record<string, unknown> | undefined;
    let subscribed!: () => void;
    const received = new Promise<void>((r) => (subscribed = r));
    const unsubscribe = ws.subscribe(
      { query: 'subscription { postCreated { id title author { id name } } }' },
      {
        next: (value) => {
          event = value as Record<string, unknown>;
          subscribed();
        },
        error: (error) => {
          event = { error: String(error instanceof Error ? error.message : JSON.stringify(error)) };
          subscribed();
        },
        complete: () => {},
      },
    );
    // The subscription is live once its operation has been taken; a short wait, then the write it reports.
    await sleep(500);
    const post = await call(
      'POST',
      `/api/v2/users/${me.sub}/posts`,
      token,
      { title: 'A newcomer writes', content: 'First post after reading the docs.' },
      [201],
    );
    await call('POST', `/api/v2/posts/${String(post.id)}/comments`, token, { text: 'And comments on it.' }, [201]);
    await graphql(token, 'mutation($input: CreatePostInput!) { createPost(input: $input) { id title } }', {
      input: { title: 'Through GraphQL', content: 'A mutation from the tour.', authorId: me.sub },
    });
    requests += 1;
    await Promise.race([received, sleep(15_000)]);
    if (!event || 'error' in event || (event as { errors?: unknown }).errors)
      throw new Error(`subscription: ${JSON.stringify(event ?? 'no event in 15 s')}`);
    await Promise.race([receiver.next, sleep(15_000)]);
    if (receiver.received() === 0) throw new Error('the webhook received no delivery in 15 s');
    await call('GET', `/api/v2/webhooks/${String(endpoint.id)}/deliveries`, admin, undefined, [200]);
    unsubscribe();
    await ws.dispose();
    await browser.close();
    browser = undefined;
    mark('after');

    const peak = Math.max(status(pid).hwm, ...samples.map((s) => s.rss));
    await sleep(Number(values.after) * 1000);
    const later = status(pid);
    mark('end');
    const split = (s: { anon: number; file: number }) => `anonymous ${mb(s.anon)}, files ${mb(s.file)}`;
    const code = /running the TypeScript sources|No compiled build/.test(log) ? 'TypeScript sources' : 'dist/';
    console.log(
      `run ${index}: ${requests} requests, ${receiver.received()} webhook deliveries, one subscription event; server ran ${code}`,
    );
    return {
      rest: atRest.rss,
      peak,
      after: later.rss,
      restSplit: split(atRest),
      afterSplit: split(later),
      steps,
      requested,
      load: loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
      deliveries: receiver.received(),
      code,
    };
  } finally {
    clearInterval(sampler);
    await browser?.close();
    receiver.server.close();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const summary = (xs: number[]) => `${mb(median(xs))} MB (${mb(Math.min(...xs))}–${mb(Math.max(...xs))})`;

const loadBefore = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
console.log(`load average at start: ${loadBefore}; ${values.runs} runs, reading ${values.after} s after the tour`);
const figures: RunFigures[] = [];
for (let i = 1; i <= Number(values.runs); i += 1) {
  const f = await run(i);
  figures.push(f);
  console.log(
    `  at rest ${mb(f.rest)} MB (${f.restSplit}), peak ${mb(f.peak)} MB, ${values.after} s after ${mb(f.after)} MB (${f.afterSplit}); load ${f.load}`,
  );
  console.log(
    `  after each step (VmRSS / VmHWM MB, s): ${f.steps.map((s) => `${s.step} ${mb(s.rss)}/${mb(s.hwm)} ${(s.ms / 1000).toFixed(1)}`).join('; ')}`,
  );
  console.log(`  the browser's requests (VmRSS MB as each finished): ${f.requested.join('; ')}`);
}
console.log(
  `medians (ranges) over ${figures.length} runs: at rest ${summary(figures.map((f) => f.rest))}, peak ${summary(
    figures.map((f) => f.peak),
  )}, ${values.after} s after the tour ${summary(figures.map((f) => f.after))}; load average at start ${loadBefore}, at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const peak = median(figures.map((f) => f.peak));
console.log(`peak under 200 MB: ${peak < 200 * MB ? 'yes' : 'no'} (median ${mb(peak)} MB)`);
