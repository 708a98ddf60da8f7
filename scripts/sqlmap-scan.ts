/**
 * Third-party scan (issue 51): Debian's `sqlmap` against every GET list route of the served OpenAPI documents
 * (/api/v1/openapi.json, /api/v2/openapi.json), on a fresh SQLite file and on a fresh PostgreSQL database.
 *
 * For each database it starts the real service as `npm start` does (NODE_ENV=production, DEMO_DATA=true, a random
 * administrator password) once per worker, signs in as alice (a user) and as the administrator, registers a webhook
 * to a loopback receiver of this script (so deliveries and events exist), and picks real path ids (alice, a post
 * with comments, a comment with likes, the webhook). A list route is a GET whose 200 JSON body has a `data` array.
 * Every declared query parameter of every list, plus the guessed `order` and `sort`, is one sqlmap run, with a real
 * value taken from the route's own first row (or the schema), alone in the query string (`order` goes with a valid
 * `sort`, as in the issue). The token is alice's where her request answers 200, the administrator's otherwise.
 *
 * Two passes:
 * - stock: `--level=3 --risk=2` (LEVEL/RISK below), sqlmap's own boundaries, on every parameter;
 * - comma: `--level=5 --risk=3 --prefix=,` on the parameters whose value is a comma list or a direction (sort,
 *   order, fields, include, types and every `[in]`): a payload appended after a comma is valid SQL in an ORDER BY,
 *   a select list or an IN list, and stock sqlmap has no such boundary for SQLite (it finds `order` on SQLite only
 *   with it; on PostgreSQL its stock ORDER BY tests do).
 * Each sqlmap run is bounded (--job-timeout), and so is each route on each database (--route-budget: parameters not
 * started by then are reported as skipped). Prints a table (route, parameter, database, verdict) and writes the full
 * one, the JSON results and every sqlmap log under --out. Exit 1 if any parameter is injectable, 2 if nothing is but
 * some run did not finish (timeout, skip, sqlmap error), 0 otherwise. A service process that dies during a run is
 * reported with its last output, restarted on the same database, and fails the scan too. Not part of `npm test`.
 *
 *   node scripts/sqlmap-scan.ts [--db sqlite,postgres] [--concurrency 2] [--params all|sample] [--routes REGEX]
 *     [--only-params REGEX] [--job-timeout 180] [--route-budget 600] [--root DIR] [--out DIR] [--list]
 *
 * --params sample: each field's plain name and each operator once per route (about 40% of the runs).
 * --routes, --only-params: scan only the list routes (`/api/v2/orders`) or parameter names matching the pattern.
 * --root: serve another checkout (e.g. an unpacked `git archive` of an older commit, its node_modules linked).
 * --list: print the runs without starting sqlmap.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freshDatabase } from './scratch.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    concurrency: { type: 'string', default: '2' },
    params: { type: 'string', default: 'all' },
    routes: { type: 'string' },
    'only-params': { type: 'string' },
    'job-timeout': { type: 'string', default: '180' },
    'route-budget': { type: 'string', default: '600' },
    root: { type: 'string', default: ROOT },
    out: { type: 'string' },
    list: { type: 'boolean', default: false },
  },
});
const SERVE_ROOT = resolve(opts.root);
const CONCURRENCY = Math.max(1, Number(opts.concurrency));
const JOB_TIMEOUT_MS = Number(opts['job-timeout']) * 1000;
const ROUTE_BUDGET_MS = Number(opts['route-budget']) * 1000;
const ROUTE_FILTER = opts.routes ? new RegExp(opts.routes) : undefined;
const PARAM_FILTER = opts['only-params'] ? new RegExp(opts['only-params']) : undefined;
const OUT = resolve(opts.out ?? `${tmpdir()}/sqlmap-scan-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = `sqlmap-${randomBytes(12).toString('hex')}`;
const LEVEL = 3;
const RISK = 2;
const DBMS: Record<string, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** Guessed names: not declared by every list, sent anyway (issue 51's `order`). */
const GUESSED = ['order', 'sort'];
/** Parameters whose value is a comma list or a sort direction: also scanned with `--prefix=,`. */
const isCommaParam = (name: string) =>
  ['sort', 'order', 'fields', 'include', 'types'].includes(name) || /\[in\]$/.test(name);
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The sqlmap options of a run, less the URL, parameter, token, DBMS and output directory. */
function passOptions(pass: Pass): string[] {
  const common = [
    '--batch',
    '--technique=BEUST',
    '--time-sec=2',
    '--flush-session',
    '--skip-waf',
    '--disable-coloring',
  ];
  // Stop at the verdict: no exploitation or fingerprinting after a finding (each would add minutes per finding).
  const answers = '--answers=exploit=N,keep testing=N';
  return pass === 'stock'
    ? [`--level=${LEVEL}`, `--risk=${RISK}`, ...common, answers]
    : ['--level=5', '--risk=3', '--prefix=,', ...common, answers];
}

type Pass = 'stock' | 'comma';

function sqlmapVersion(): string {
  const run = spawnSync('sqlmap', ['--version'], { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    console.error('sqlmap is not installed: apt-get install -y sqlmap (Debian package)');
    process.exit(2);
  }
  return run.stdout.trim().split('\n')[0]!;
}

/** A loopback endpoint for the scan's webhook: deliveries succeed without leaving the machine. */
async function startReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

type Service = ServiceProcess;

/** `npm start`'s command (of --root) as a child process, on `databaseUrl` (scripts/service-process.ts). */
const startService = (databaseUrl: string): Promise<Service> =>
  startServiceProcess(SERVE_ROOT, databaseUrl, {
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    // The tokens are minted once per service and must outlive the scan (the default is 15 minutes).
    JWT_TTL_SECONDS: '86400',
    // The webhook goes to this script's loopback receiver, which production refuses otherwise.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // No load shedding: a payload that blocks the event loop (SQLite's heavy query) must not turn the requests
    // after it into quick 503s, which sqlmap reads as "no delay" and then dismisses a real finding.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  });

interface Target {
  service: Service;
  tokens: { user: string; admin: string };
  ids: Record<string, string>;
}

async function api(url: string, path: string, token?: string, init: RequestInit = {}) {
  const response = await fetch(`${url}${path}`, {
    ...init,
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
  const text = await response.text();
  let body: Json | undefined;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** Tokens, real path ids and some writes so every list has rows (events, deliveries, a comment by alice). */
async function prepareTarget(service: Service, receiverUrl: string): Promise<Target> {
  const { url } = service;
  const signIn = async (email: string, password: string) => {
    const { body } = await api(url, '/api/auth/token', undefined, {
      method: 'POST',
      body: JSON.stringify({ email, password }),
    });
    if (typeof body?.access_token !== 'string') throw new Error(`could not sign in as ${email}`);
    return body.access_token as string;
  };
  const user = await signIn('alice@example.com', 'demo-password');
  const admin = await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
  const userId = String((JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()) as Json).sub);
  const webhook = await api(url, '/api/v2/webhooks', admin, {
    method: 'POST',
    body: JSON.stringify({ url: receiverUrl, events: ['*'], description: 'sqlmap scan' }),
  });
  const webhookId = String(webhook.body?.id ?? '1');
  // The comment with the most likes and its post, from the demo data (two rows or more give a real cursor).
  const posts = ((await api(url, '/api/v2/posts?limit=100', user)).body?.data ?? []) as Json[];
  let [postId, commentId, mostLikes] = [String(posts[0]?.id ?? '1'), '1', -1];
  for (const post of posts) {
    const comments = ((await api(url, `/api/v2/posts/${post.id}/comments?limit=100`, user)).body?.data ?? []) as Json[];
    for (const comment of comments) {
      const likes = ((await api(url, `/api/v2/comments/${comment.id}/likes?limit=100`, user)).body?.data ??
        []) as Json[];
      if (likes.length > mostLikes)
        [postId, commentId, mostLikes] = [String(post.id), String(comment.id), likes.length];
    }
  }
  // Writes after the webhook exists: events in the feed, deliveries for the webhook.
  await api(url, `/api/v2/posts/${postId}/comments`, user, {
    method: 'POST',
    body: JSON.stringify({ text: 'A comment written before the sqlmap scan.' }),
  });
  for (let i = 0; i < 25; i += 1) {
    const deliveries = await api(url, `/api/v2/webhooks/${webhookId}/deliveries`, admin);
    if (((deliveries.body?.data ?? []) as Json[]).length > 0) break;
    await sleep(200);
  }
  return {
    service,
    tokens: { user, admin },
    ids: { userId, customerId: userId, postId, commentId, webhookId },
  };
}

interface Param {
  name: string;
  declared: boolean;
  schema: Json;
  example?: unknown;
  description: string;
}
interface ListRoute {
  version: number;
  /** The path as the document writes it, under /api/vN. */
  route: string;
  params: Param[];
}

/** The GET operations whose 200 JSON body is a page (a `data` array), with their query parameters. */
function listRoutes(document: Json, version: number): ListRoute[] {
  const deref = (node: Json): Json => {
    let current = node;
    while (current && typeof current.$ref === 'string') {
      const [, , section, name] = (current.$ref as string).split('/');
      current = document.components[section!][name!];
    }
    return current;
  };
  const routes: ListRoute[] = [];
  for (const [path, methods] of Object.entries(document.paths as Json)) {
    const op = (methods as Json).get as Json | undefined;
    const schema = op && deref(op.responses?.['200']?.content?.['application/json']?.schema ?? {});
    if (!op || deref(schema?.properties?.data ?? {})?.type !== 'array') continue;
    const route = `/api/v${version}${path}`;
    if (ROUTE_FILTER && !ROUTE_FILTER.test(route)) continue;
    const params: Param[] = ((op.parameters ?? []) as Json[])
      .map(deref)
      .filter((p) => p.in === 'query')
      .map((p) => ({
        name: p.name as string,
        declared: true,
        schema: (p.schema ?? {}) as Json,
        example: p.example,
        description: (p.description ?? '') as string,
      }));
    for (const name of GUESSED)
      if (!params.some((p) => p.name === name)) params.push({ name, declared: false, schema: {}, description: '' });
    routes.push({ version, route, params });
  }
  return routes;
}

/** --params sample: plain names (no operator) and, per route, each operator once. */
function sampleParams(params: Param[]): Param[] {
  const seen = new Set<string>();
  return params.filter((p) => {
    const operator = /\[(\w+)\]$/.exec(p.name)?.[1];
    if (!operator) return true;
    if (seen.has(operator)) return false;
    seen.add(operator);
    return true;
  });
}

interface RouteContext {
  path: string;
  tokenKind: 'user' | 'admin';
  row: Json | undefined;
  cursor: string | undefined;
}

/** The route's path with real ids, the token that reads it, its first row and a real cursor. */
async function routeContext(target: Target, list: ListRoute): Promise<RouteContext> {
  const path = list.route.replace(/\{(\w+)\}/g, (_, name: string) => target.ids[name] ?? '1');
  let tokenKind: 'user' | 'admin' = 'user';
  let first = await api(target.service.url, `${path}?limit=1`, target.tokens.user);
  if (first.status !== 200) {
    tokenKind = 'admin';
    first = await api(target.service.url, `${path}?limit=1`, target.tokens.admin);
  }
  const rows = (first.body?.data ?? []) as Json[];
  const cursor = (first.body?.nextCursor ?? first.body?.pagination?.nextCursor ?? undefined) as string | undefined;
  return { path, tokenKind, row: rows[0], cursor: cursor ?? undefined };
}

/** A real value for a parameter: the route's own data where the name is a field, else the schema's. */
function valueFor(param: Param, context: RouteContext, sortField: string, siblings: Param[]): string {
  const { name } = param;
  const row = context.row ?? {};
  const base = name.replace(/\[\w+\]$/, '');
  const operator = /\[(\w+)\]$/.exec(name)?.[1];
  const fromRow = (field: string) => (row[field] === null || row[field] === undefined ? undefined : row[field]);
  switch (name) {
    case 'order':
      return 'desc';
    case 'sort':
      return param.example === undefined ? sortField : String(param.example);
    case 'page':
      return '1';
    case 'limit':
      return '5';
    case 'offset':
      return '0';
    case 'cursor':
      return context.cursor ?? 'eyJ9';
    case 'fields':
      return `id,${Object.keys(row).find((k) => k !== 'id' && !k.startsWith('_')) ?? 'id'}`;
    case 'after':
      return String(fromRow('id') ?? '1');
    case 'customerId':
      return String(fromRow('customerId') ?? '1');
    case 'search':
      return String(fromRow('title') ?? fromRow('name') ?? 'a').slice(0, 4);
    case 'min_price':
    case 'max_price':
      return String(fromRow('price') ?? '1');
    case 'in_stock':
      return 'true';
  }
  if (param.example !== undefined) return String(param.example);
  if (Array.isArray(param.schema.enum)) return String(param.schema.enum[0]);
  if (operator === 'null') return 'false';
  const value = fromRow(base) ?? (base === 'search' ? (fromRow('title') ?? fromRow('name')) : undefined);
  if (value !== undefined && typeof value !== 'object') {
    const text = String(value);
    return operator === 'contains' ? text.slice(0, 4) : text;
  }
  // No value in the row (a null `age`): the field's own type, also for `[in]`, whose schema is a plain string.
  const schema = siblings.find((p) => p.name === base)?.schema ?? param.schema;
  if (schema.type === 'integer' || schema.type === 'number') return '1';
  if (schema.type === 'boolean') return 'true';
  if (schema.format === 'date-time') return new Date().toISOString();
  return 'a';
}

/** The first sortable field a route's `sort` documents (createdAt where it is one), for `order`'s companion. */
function sortFieldOf(list: ListRoute): string {
  const sort = list.params.find((p) => p.name === 'sort' && p.declared);
  const fields = /\(([^)]*)\)/.exec(sort?.description ?? '')?.[1]?.split(/,\s*/) ?? [];
  const names = fields.map((f) => f.replace(/\s*\(.*$/, '').trim()).filter((f) => /^-?\w+$/.test(f));
  return names.find((f) => f === 'createdAt') ?? names.find((f) => !f.startsWith('-')) ?? 'createdAt';
}

/** Percent-encodes a query value, also `*` (sqlmap's custom injection mark) and brackets-free names stay as sent. */
const encodeValue = (value: string) => encodeURIComponent(value).replace(/\*/g, '%2A');

interface Job {
  index: number;
  database: string;
  list: ListRoute;
  param: Param;
  pass: Pass;
}
interface Result {
  database: string;
  route: string;
  param: string;
  declared: boolean;
  pass: Pass;
  token: string;
  url: string;
  baseline: number | undefined;
  verdict: 'INJECTABLE' | 'suspected' | 'not injectable' | 'timeout' | 'skipped' | 'error';
  details: string[];
  httpCodes: Record<string, number>;
  seconds: number;
  log: string;
}

/** The verdict of one sqlmap run, from its output. */
function parseSqlmap(output: string, param: string): Pick<Result, 'verdict' | 'details' | 'httpCodes'> {
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]/g, '');
  const httpCodes: Record<string, number> = {};
  const codes = /HTTP error codes detected during run:\s*\n?([^\n]*)/.exec(text)?.[1] ?? '';
  for (const [, code, count] of codes.matchAll(/(\d{3}) \([^)]*\) - (\d+) times/g)) httpCodes[code!] = Number(count);
  const details: string[] = [];
  // The injection points sqlmap reports: "Parameter: x (GET)" then Type / Title / Payload lines.
  for (const block of text.matchAll(/Parameter: (.+?) \(GET\)\n((?:\s{4}.+\n?)+)/g))
    for (const [, type, title, payload] of block[2]!.matchAll(/Type: (.+)\n\s+Title: (.+)\n\s+Payload: (.+)/g))
      details.push(`${type}: ${title}; payload ${payload!.trim()}`);
  const quoted = param.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (new RegExp(`parameter '${quoted}' is vulnerable`).test(text) || details.length > 0)
    return { verdict: 'INJECTABLE', details, httpCodes };
  const suspicions = [
    ...text.matchAll(new RegExp(`parameter '${quoted}' (?:appears to be|is) '([^']+)' injectable`, 'g')),
  ].map((m) => `sqlmap: appears '${m[1]}' injectable`);
  if (/false positive or unexploitable injection point detected/.test(text))
    suspicions.push('sqlmap: dismissed as a false positive');
  if (suspicions.length > 0) return { verdict: 'suspected', details: suspicions, httpCodes };
  if (/does not seem to be injectable|all tested parameters do not appear to be injectable/.test(text)) {
    const heuristic = /heuristic \(basic\) test shows that GET parameter '[^']+' might be injectable[^\n]*/.exec(text);
    return { verdict: 'not injectable', details: heuristic ? [heuristic[0]] : [], httpCodes };
  }
  const critical = /\[(?:CRITICAL|ERROR)\] ([^\n]+)/.exec(text)?.[1];
  return { verdict: 'error', details: [critical ?? text.trim().split('\n').slice(-3).join(' | ')], httpCodes };
}

function sqlmapArgs(url: string, job: Job, token: string, outputDir: string): string[] {
  return [
    '-u',
    url,
    '-p',
    job.param.name,
    `--headers=Authorization: Bearer ${token}`,
    `--dbms=${DBMS[job.database]}`,
    ...passOptions(job.pass),
    `--output-dir=${outputDir}`,
  ];
}

async function runSqlmap(args: string[], logFile: string): Promise<{ output: string; timedOut: boolean }> {
  const child = spawn('sqlmap', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb' } });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, JOB_TIMEOUT_MS);
  await once(child, 'close');
  clearTimeout(timer);
  writeFileSync(logFile, `sqlmap ${args.map((a) => JSON.stringify(a)).join(' ')}\n\n${output}`);
  return { output, timedOut };
}

interface Crash {
  database: string;
  route: string;
  param: string;
  pass: Pass;
  exit: string;
  tail: string[];
}

/** One database: CONCURRENCY services (each its own database), the jobs shared between them. */
async function scanDatabase(kind: string, receiverUrl: string, jobsOf: (lists: ListRoute[]) => Job[]) {
  const started = Date.now();
  const loadStart = loadavg();
  const databases = await Promise.all(Array.from({ length: CONCURRENCY }, () => freshDatabase(kind, 'sqlmap-scan-db')));
  const services: Service[] = [];
  const errorLines: string[] = [];
  const crashes: Crash[] = [];
  try {
    for (const database of databases) services.push(await startService(database.url));
    const targets = await Promise.all(services.map((s) => prepareTarget(s, receiverUrl)));
    const documents = await Promise.all(
      [1, 2].map(async (v) => (await api(targets[0]!.service.url, `/api/v${v}/openapi.json`)).body!),
    );
    const lists = [...listRoutes(documents[0]!, 1), ...listRoutes(documents[1]!, 2)];
    const jobs = jobsOf(lists).map((job) => ({ ...job, database: kind }));
    console.log(
      `\n${kind}: ${lists.length} list routes, ${jobs.length} sqlmap runs, ${CONCURRENCY} services (${services.map((s) => s.url).join(', ')})`,
    );
    if (opts.list) {
      for (const job of jobs) console.log(`  ${job.list.route} ${job.param.name} ${job.pass}`);
      return { kind, results: [] as Result[], seconds: 0, loadStart, loadEnd: loadavg(), errorLines, crashes };
    }
    const contexts = targets.map(() => new Map<string, Promise<RouteContext>>());
    const routeStarted = new Map<string, number>();
    const results: Result[] = [];
    let next = 0;
    const worker = async (w: number) => {
      for (let job = jobs[next++]; job; job = jobs[next++]) {
        if (services[w]!.crash) {
          // The service died in an earlier run (recorded there): a new one on the same database, new sign-ins.
          errorLines.push(...services[w]!.errorLines);
          services[w] = await startService(databases[w]!.url);
          targets[w] = await prepareTarget(services[w]!, receiverUrl);
          contexts[w]!.clear();
        }
        const target = targets[w]!;
        const begun = Date.now();
        const context = await (contexts[w]!.get(job.list.route) ??
          contexts[w]!.set(job.list.route, routeContext(target, job.list)).get(job.list.route)!);
        const sortField = sortFieldOf(job.list);
        const query = [`${job.param.name}=${encodeValue(valueFor(job.param, context, sortField, job.list.params))}`];
        if (job.param.name === 'order') query.unshift(`sort=${encodeValue(sortField)}`);
        const url = `${target.service.url}${context.path}?${query.join('&')}`;
        const status = (token: string) =>
          fetch(url, { headers: { authorization: `Bearer ${token}` } }).then(
            async (r) => (await r.arrayBuffer(), r.status),
            () => undefined,
          );
        // A filter for administrators only (`email`): alice's 403 would hide the query from sqlmap.
        let tokenKind = context.tokenKind;
        let baseline = await status(target.tokens[tokenKind]);
        if (baseline === 403 && tokenKind === 'user')
          [tokenKind, baseline] = ['admin', await status(target.tokens.admin)];
        const token = target.tokens[tokenKind];
        const base: Omit<Result, 'verdict' | 'details' | 'httpCodes' | 'seconds' | 'log'> = {
          database: kind,
          route: job.list.route,
          param: job.param.name,
          declared: job.param.declared,
          pass: job.pass,
          token: tokenKind === 'user' ? 'alice' : 'admin',
          url: url.replace(target.service.url, ''),
          baseline,
        };
        const firstStart =
          routeStarted.get(job.list.route) ?? routeStarted.set(job.list.route, begun).get(job.list.route)!;
        if (begun - firstStart > ROUTE_BUDGET_MS) {
          const skipped = { verdict: 'skipped' as const, details: ['route budget spent'], httpCodes: {} };
          results.push({ ...base, ...skipped, seconds: 0, log: '' });
          continue;
        }
        const dir = join(OUT, kind, String(job.index).padStart(4, '0'));
        mkdirSync(dir, { recursive: true });
        const log = join(dir, 'sqlmap.log');
        const { output, timedOut } = await runSqlmap(sqlmapArgs(url, job, token, dir), log);
        const parsed = parseSqlmap(output, job.param.name);
        const result: Result = {
          ...base,
          ...parsed,
          verdict: timedOut && parsed.verdict !== 'INJECTABLE' ? 'timeout' : parsed.verdict,
          seconds: (Date.now() - begun) / 1000,
          log,
        };
        const crash = target.service.crash;
        if (crash) {
          crashes.push({ database: kind, route: base.route, param: base.param, pass: job.pass, ...crash });
          result.details.push(`the service died during this run (${crash.exit})`);
        }
        results.push(result);
        process.stdout.write(result.verdict === 'not injectable' && !crash ? '.' : `\n  ${describe(result)}\n`);
      }
    };
    await Promise.all(targets.map((_, w) => worker(w)));
    await sleep(500);
    return {
      kind,
      results,
      seconds: (Date.now() - started) / 1000,
      loadStart,
      loadEnd: loadavg(),
      errorLines: [...errorLines, ...services.flatMap((s) => s.errorLines)],
      crashes,
    };
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await Promise.all(databases.map((d) => d.drop()));
  }
}

const describe = (r: Result) =>
  `${r.verdict} ${r.route} ${r.param} [${r.pass}] on ${r.database}: ${r.details.join('; ')}`;

function jobsFor(lists: ListRoute[]): Job[] {
  const jobs: Job[] = [];
  for (const list of lists) {
    const params = (opts.params === 'sample' ? sampleParams(list.params) : list.params).filter(
      (p) => !PARAM_FILTER || PARAM_FILTER.test(p.name),
    );
    // The guessed and sort-like parameters first, so a route budget that runs out leaves the plain filters.
    const ordered = [...params].sort((a, b) => Number(isCommaParam(b.name)) - Number(isCommaParam(a.name)));
    for (const param of ordered) {
      jobs.push({ index: jobs.length, database: '', list, param, pass: 'stock' });
      if (isCommaParam(param.name)) jobs.push({ index: jobs.length, database: '', list, param, pass: 'comma' });
    }
  }
  return jobs;
}

type Scan = Awaited<ReturnType<typeof scanDatabase>>;

/** Route × parameter × database rows; parameters with the same plain verdict on a route are one row. */
function summaryTable(scans: Scan[]): string[] {
  const lines = ['| route | parameter | database | verdict |', '|---|---|---|---|'];
  for (const scan of scans) {
    const byRoute = new Map<string, Result[]>();
    for (const r of scan.results) byRoute.set(r.route, [...(byRoute.get(r.route) ?? []), r]);
    for (const [route, results] of byRoute) {
      const params = new Map<string, Result[]>();
      for (const r of results) params.set(r.param, [...(params.get(r.param) ?? []), r]);
      const clean: string[] = [];
      for (const [param, runs] of params) {
        const worst = runs.find((r) => r.verdict === 'INJECTABLE') ?? runs.find((r) => r.verdict !== 'not injectable');
        const baseline = [...new Set(runs.map((r) => r.baseline ?? 'none'))].join('/');
        if (!worst) {
          clean.push(`${param}${baseline === '200' ? '' : ` (${baseline})`}`);
          continue;
        }
        const verdicts = runs.map(
          (r) => `${r.pass}: ${r.verdict}${r.details.length ? ` (${r.details.join('; ')})` : ''}`,
        );
        lines.push(
          `| ${route} | \`${param}\`${runs[0]!.declared ? '' : ' (guessed)'} | ${scan.kind} | ${verdicts.join('; ').replace(/\|/g, '\\|')}; baseline ${baseline} |`,
        );
      }
      if (clean.length > 0)
        lines.push(
          `| ${route} | ${clean.length === 1 ? '1 parameter' : `${clean.length} parameters`}: ${clean.map((p) => `\`${p}\``).join(', ')} | ${scan.kind} | not injectable |`,
        );
    }
  }
  return lines;
}

function fullTable(scans: Scan[]): string[] {
  const lines = [
    '| database | route | parameter | declared | pass | token | baseline | verdict | seconds | 5xx during run | details |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of scans.flatMap((s) => s.results))
    lines.push(
      `| ${r.database} | ${r.route} | \`${r.param}\` | ${r.declared ? 'yes' : 'no'} | ${r.pass} | ${r.token} | ${r.baseline ?? ''} | ${r.verdict} | ${r.seconds.toFixed(1)} | ${Object.entries(
        r.httpCodes,
      )
        .filter(([c]) => c.startsWith('5'))
        .map(([c, n]) => `${c}×${n}`)
        .join(' ')} | ${r.details.join('; ').replace(/\|/g, '\\|')} |`,
    );
  return lines;
}

const version = sqlmapVersion();
const commandLine = (pass: Pass) =>
  [
    'sqlmap -u "http://127.0.0.1:PORT/api/vN/LIST?PARAM=VALUE" -p PARAM',
    '--headers="Authorization: Bearer TOKEN" --dbms=SQLite|PostgreSQL',
    ...passOptions(pass).map((o) => (o.includes(' ') ? `"${o}"` : o)),
    '--output-dir=OUT/DB/N',
  ].join(' ');
mkdirSync(OUT, { recursive: true });
console.log(`sqlmap ${version}; serving ${SERVE_ROOT}; output in ${OUT}`);
console.log(`stock pass: ${commandLine('stock')}`);
console.log(`comma pass: ${commandLine('comma')}`);
const receiver = await startReceiver();
const scans: Scan[] = [];
const startedAt = new Date();
try {
  for (const kind of opts.db.split(',')) {
    if (!DBMS[kind]) throw new Error(`unknown database ${kind} (sqlite, postgres)`);
    scans.push(await scanDatabase(kind, receiver.url, jobsFor));
  }
} finally {
  await receiver.close();
}
if (opts.list) process.exit(0);

const all = scans.flatMap((s) => s.results);
const count = (verdict: Result['verdict']) => all.filter((r) => r.verdict === verdict).length;
const fiveXx = (s: Scan) =>
  s.results.reduce(
    (n, r) =>
      n +
      Object.entries(r.httpCodes)
        .filter(([c]) => c.startsWith('5'))
        .reduce((m, [, k]) => m + k, 0),
    0,
  );
const header = [
  `sqlmap ${version} against ${SERVE_ROOT}, started ${startedAt.toISOString()}`,
  '',
  ...scans.map(
    (s) =>
      `- ${s.kind}: ${new Set(s.results.map((r) => r.route)).size} list routes, ${new Set(s.results.map((r) => `${r.route} ${r.param}`)).size} route × parameter pairs, ${s.results.length} sqlmap runs in ${s.seconds.toFixed(0)} s; load average ${s.loadStart} → ${s.loadEnd}; 5xx answers counted by sqlmap: ${fiveXx(s)}; server error log lines: ${s.errorLines.length}; service crashes: ${s.crashes.length}; non-200 baselines: ${s.results.filter((r) => r.baseline !== 200 && r.verdict !== 'skipped').length}`,
  ),
  `- verdicts: ${(['INJECTABLE', 'suspected', 'not injectable', 'timeout', 'skipped', 'error'] as const)
    .map((v) => `${v} ${count(v)}`)
    .join(', ')}`,
  `- stock pass: \`${commandLine('stock')}\``,
  `- comma pass: \`${commandLine('comma')}\``,
];
const summary = summaryTable(scans);
writeFileSync(
  join(OUT, 'report.md'),
  [
    '# sqlmap scan',
    '',
    ...header,
    '',
    '## Summary',
    '',
    ...summary,
    '',
    '## Every run',
    '',
    ...fullTable(scans),
    '',
    '## Service crashes',
    '',
    ...(scans.some((s) => s.crashes.length > 0)
      ? scans.flatMap((s) =>
          s.crashes.flatMap((c) => [
            `- ${c.database}, during ${c.route} \`${c.param}\` (${c.pass}): ${c.exit}; its last output:`,
            '',
            '```',
            ...c.tail,
            '```',
            '',
          ]),
        )
      : ['None.']),
    '',
    '## Server error log lines (first 20 per database)',
    '',
    ...scans.flatMap((s) =>
      s.errorLines.slice(0, 20).map((l) => `- ${s.kind}: \`${l.slice(0, 400).replace(/`/g, "'")}\``),
    ),
    '',
  ].join('\n'),
);
writeFileSync(join(OUT, 'results.json'), JSON.stringify({ version, startedAt, scans }, null, 2));
console.log(`\n\n${header.join('\n')}\n\n${summary.join('\n')}\n\nFull table: ${join(OUT, 'report.md')}`);
const injectable = count('INJECTABLE');
const crashes = scans.flatMap((s) => s.crashes);
for (const c of crashes)
  console.log(
    `\nSERVICE CRASH on ${c.database} during ${c.route} ${c.param} (${c.pass}): ${c.exit}\n  ${c.tail.slice(-8).join('\n  ')}`,
  );
const unfinished = count('timeout') + count('skipped') + count('error');
console.log(
  injectable + crashes.length > 0
    ? `FAIL: ${injectable} sqlmap runs found an injection, the service died ${crashes.length} times`
    : unfinished > 0
      ? `INCOMPLETE: nothing injectable found, but ${unfinished} runs did not finish`
      : 'PASS: sqlmap found nothing injectable',
);
process.exitCode = injectable + crashes.length > 0 ? 1 : unfinished > 0 ? 2 : 0;
