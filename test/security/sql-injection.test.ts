import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, it, type TestContext } from 'node:test';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { API_PREFIXES } from '../../src/core/http/versioning.ts';
import { DIALECTS } from '../support/dialects.ts';
import {
  databaseTextIn,
  ERROR_SHAPED,
  EXPRESSION_SHAPED,
  GUESSED_DIRECTIONS,
  GUESSED_PARAMETERS,
  JUNK,
  PAYLOADS,
  sqliteHeavyRows,
  timeBased,
  type Payloads,
  type Shape,
} from '../support/injection-payloads.ts';
import { checkContract, ContractViolation } from '../support/openapi-validator.ts';
import { servedRoutes } from '../support/served-routes.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/**
 * Issue 51 and DECISIONS §13: nothing a client sends becomes SQL text. Generated from the app itself,
 * so a new route, parameter, header or GraphQL argument is probed without editing this file: the GET
 * routes from Fastify's route tree under every API prefix, each route's query parameters and headers
 * from the OpenAPI document that prefix serves, the writes that read a header from the documents, the
 * GraphQL text inputs (String, ID and enum arguments and input fields of every root field) from the
 * served schema. Each input gets, one at a time, plain junk, error-shaped SQL (`'`, `asc,`, `--`),
 * expression-shaped SQL (`asc,(select 1)`) and, one request at a time, time-based SQL (`pg_sleep(2)`;
 * a recursive CTE of about three seconds on SQLite), as an administrator and as a plain user, on rows
 * that exist (so the requests get past the access checks and reach the services and the database).
 *
 * A finding is: a 5xx or no answer; database error text in a body; an answer slowed by a time-based
 * payload (against the same request with junk); an SQL expression accepted (2xx) where junk is refused
 * (4xx, or the 500 of a statement it broke); in v2 an undeclared query parameter not refused with 422 naming it; in v1 (and on the
 * negotiated `/api`) an undeclared one that changes the answer's status; an answer outside the
 * published contract. Each test collects its findings and fails with a summary of their kinds.
 *
 * Within a minute per database: requests go 8 at a time (the time-based ones one at a time), and the
 * payload sets are tiered (injection-payloads.ts). Every input gets at least junk and a subselect;
 * the full set goes to the administrator on every declared parameter (the six comparison operators of
 * a filter field share its value's path and get the core set) and on the guessed sort names of every
 * list in v1 (where an undeclared name still reaches the handler). A parameter declared alike in v1
 * and v2 of a route is probed under v2 only (one route table, one handler); the negotiated `/api`
 * (v1's document) gets the guessed names of its lists only.
 *
 * `INJECTION_FINDINGS=<file>` appends every finding to that file (a failure shows 8 of each kind).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Requests in flight at once (the server shares this process's event loop). */
const CONCURRENCY = 8;
/** An answer later than this is a finding of its own (no answer). */
const ANSWER_BOUND_MS = 15_000;
/** A time-based payload answered this much later than the same request with junk ran in the database. */
const SLOWER_BY_MS = 1200;
/** Time-based probes stop after this many slow answers: each costs seconds, and one is enough to fail. */
const SLOW_FINDINGS_BEFORE_STOP = 6;
/** Parameters every GET route gets time-based payloads in, declared or not (issue 51's `order`). */
const TIMED_ALWAYS = ['order', 'sort'];
/** A filter field's comparison operators: one value path (checked, then bound) behind six names. */
const COMPARISON = /\[(eq|ne|gt|gte|lt|lte)\]$/;

type Who = 'admin' | 'user';

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  text: string;
  body: Json | undefined;
  ms: number;
  /** Why there is no answer (a timeout, a reset connection). */
  lost?: string;
  /** Violations of the published contract. */
  contract?: string;
}

/** One request carrying one payload in one input, as one caller. */
interface Probe {
  who: Who;
  /** The input: its junk answer decides what its expressions may get. */
  group: string;
  shape: Shape;
  payload: string;
  sent: Sent;
  /** For an undeclared query parameter: its name, the version's rule, and the path of the answer without it. */
  undeclared?: { name: string; version: number; baseline: string };
  graphql?: boolean;
  /** A header HTTP splits at commas (`Accept`): `asc,(select 1)` is two items there, not an expression. */
  commaList?: boolean;
}

interface GetRoute {
  prefix: string;
  version: number;
  /** The route as served (`/api/v2/posts/:postId/comments`). */
  url: string;
  /** The route without its prefix, as the documents write it (`/posts/{postId}/comments`). */
  template: string;
  /** The path with every id filled in from the fixtures. */
  path: string;
  pathParams: string[];
  /** Declared query parameters with their schemas. */
  query: Map<string, Json>;
  /** Declared header names (lower case). */
  headers: string[];
  /** A page or feed (declares `limit`): in v1 the guessed sort names get the full set there. */
  list: boolean;
  /** A sortable field, when the route declares `sort`: guessed directions are also sent beside it. */
  sortField: string | undefined;
}

/** Findings by kind, reported together at the end of a test. */
class Findings {
  private readonly byKind = new Map<string, string[]>();

  add(kind: string, message: string): void {
    const list = this.byKind.get(kind) ?? [];
    list.push(message);
    this.byKind.set(kind, list);
  }

  /** The findings of the kinds `keep` accepts. */
  filter(keep: (kind: string) => boolean): Findings {
    const kept = new Findings();
    for (const [kind, list] of this.byKind) if (keep(kind)) for (const message of list) kept.add(kind, message);
    return kept;
  }

  get count(): number {
    return [...this.byKind.values()].reduce((sum, list) => sum + list.length, 0);
  }

  report(): string {
    return [...this.byKind]
      .map(([kind, list]) => {
        const shown = list.slice(0, 8).map((message) => `    ${message}`);
        if (list.length > 8) shown.push(`    ... and ${list.length - 8} more`);
        return `  ${kind}: ${list.length}\n${shown.join('\n')}`;
      })
      .join('\n');
  }

  assertNone(what: string): void {
    if (process.env.INJECTION_FINDINGS && this.count > 0)
      appendFileSync(
        process.env.INJECTION_FINDINGS,
        [...this.byKind].flatMap(([kind, list]) => list.map((message) => `${what}\t${kind}\t${message}\n`)).join(''),
      );
    assert.equal(this.count, 0, `${what}: ${this.count} findings\n${this.report()}`);
  }
}

async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const queryString = (pairs: [string, string][]): string =>
  pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`;

function describeProbe(probe: Probe): string {
  const { method, path, headers, body } = probe.sent;
  const shown = Object.entries(headers).filter(([name]) => name !== 'authorization' && name !== 'content-type');
  return [
    `${probe.who} ${method} ${path.slice(0, 240)}`,
    ...(shown.length > 0 ? [JSON.stringify(Object.fromEntries(shown)).slice(0, 200)] : []),
    ...(body ? [body.slice(0, 300)] : []),
  ].join(' ');
}

/** Sends one request; its status, text, parsed JSON, time to the full answer, and contract check. */
async function hit(t: TestServer, sent: Sent): Promise<Answer> {
  const url = new URL(`${t.url}${sent.path}`);
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: sent.method,
      headers: sent.headers,
      body: sent.body,
      signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    });
    // An event stream never ends: its status and headers are the answer.
    const streaming =
      response.status === 200 && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (streaming) await response.body?.cancel();
    const text = streaming ? '' : await response.text();
    const ms = performance.now() - started;
    let body: Json | undefined;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = undefined;
    }
    let contract: string | undefined;
    try {
      await checkContract({
        method: sent.method,
        path: `${url.pathname}${url.search}`,
        status: response.status,
        headers: response.headers,
        text,
        body,
      });
    } catch (error) {
      if (!(error instanceof ContractViolation)) throw error;
      contract = error.message.split('\n').slice(1, 3).join(' ').trim();
    }
    return { status: response.status, text, body, ms, ...(contract ? { contract } : {}) };
  } catch (error) {
    return { status: 0, text: '', body: undefined, ms: performance.now() - started, lost: String(error) };
  }
}

const refused = (probe: Probe, answer: Answer): boolean =>
  answer.status >= 400 || (probe.graphql === true && ((answer.body?.errors ?? []) as unknown[]).length > 0);

const conflict = (answer: Answer): boolean =>
  answer.status === 409 ||
  ((answer.body?.errors ?? []) as { extensions?: { code?: string } }[]).some(
    (error) => error.extensions?.code === 'CONFLICT',
  );

const accepted = (probe: Probe, answer: Answer): boolean =>
  answer.status >= 200 && answer.status < 300 && !refused(probe, answer);

const UNDECLARED_KINDS = new Set([
  'v2 undeclared parameter not refused with 422 naming it',
  'v1 undeclared parameter not answered as if absent',
]);

/**
 * Collects the findings of a set of probes: each answer on its own, each input's expressions against
 * its junk.
 */
class Checker {
  readonly findings = new Findings();
  private readonly groups = new Map<string, [Probe, Answer][]>();

  private readonly payloads: readonly string[];
  private readonly baselines: ReadonlyMap<string, Answer>;

  constructor(payloads: readonly string[], baselines: ReadonlyMap<string, Answer>) {
    this.payloads = payloads;
    this.baselines = baselines;
  }

  check(probe: Probe, answer: Answer): void {
    const where = describeProbe(probe);
    const key = `${probe.who}|${probe.group}`;
    this.groups.set(key, [...(this.groups.get(key) ?? []), [probe, answer]]);
    if (answer.lost) {
      this.findings.add('no answer', `${where}: ${answer.lost}`);
      return;
    }
    if (answer.status >= 500) this.findings.add('5xx', `${where} → ${answer.status} ${answer.text.slice(0, 200)}`);
    const leaked = databaseTextIn(answer.text, this.payloads);
    if (leaked)
      this.findings.add('database text', `${where} → ${answer.status} "${leaked}" in ${answer.text.slice(0, 300)}`);
    if (probe.graphql) {
      const codes = ((answer.body?.errors ?? []) as Json[]).map((e) => e.extensions?.code as string | undefined);
      if (codes.includes('INTERNAL_SERVER_ERROR'))
        this.findings.add('GraphQL internal error', `${where} → ${answer.text.slice(0, 300)}`);
    }
    if (answer.contract)
      this.findings.add('answer outside the contract', `${where} → ${answer.status}: ${answer.contract}`);
    if (probe.undeclared) this.checkUndeclared(probe, answer, where);
  }

  /** §13: v2 refuses an undeclared query parameter with 422 naming it; v1 answers as if it were absent. */
  private checkUndeclared(probe: Probe, answer: Answer, where: string): void {
    const { name, version, baseline: path } = probe.undeclared!;
    const baseline = this.baselines.get(`${probe.who}|${path}`);
    assert.ok(baseline, `no answer without probes for ${probe.who} ${path}`);
    if (version >= 2) {
      const details = (answer.body?.error?.details ?? []) as Json[];
      const named =
        answer.status === 422 &&
        answer.body?.error?.code === 'VALIDATION_ERROR' &&
        details.some((detail) => detail.field === name);
      // A caller refused before validation (401, 403) is refused either way.
      const refusedAnyway = (baseline.status === 401 || baseline.status === 403) && answer.status === baseline.status;
      if (!named && !refusedAnyway)
        this.findings.add([...UNDECLARED_KINDS][0]!, `${where} → ${answer.status} ${answer.text.slice(0, 200)}`);
    } else if (answer.status !== baseline.status) {
      this.findings.add(
        [...UNDECLARED_KINDS][1]!,
        `${where} → ${answer.status}, without it ${baseline.status}: ${answer.text.slice(0, 200)}`,
      );
    }
  }

  /** Where junk is refused, an expression must be too: accepted, it reached somewhere junk did not. */
  finish(): Findings {
    for (const group of this.groups.values()) {
      const junk = group.find(([probe]) => probe.shape === 'junk');
      // Junk refused as taken (409 on a unique key: a product's `sku` an earlier probe stored) was read as
      // data and compared, not refused for its shape: no contrast to hold an expression to.
      if (!junk || junk[0].commaList || junk[1].lost || !refused(...junk) || conflict(junk[1])) continue;
      for (const [probe, answer] of group)
        if ((probe.shape === 'expression' || probe.shape === 'time') && accepted(probe, answer))
          this.findings.add(
            'SQL expression accepted where junk is refused',
            `${describeProbe(probe)} → ${answer.status}, junk → ${junk[1].status}: ${answer.text.slice(0, 160)}`,
          );
    }
    return this.findings;
  }
}

function resolveParameter(document: Json, parameter: Json): Json {
  if (typeof parameter.$ref !== 'string') return parameter;
  return document.components?.parameters?.[parameter.$ref.split('/').pop() as string] as Json;
}

/**
 * A sortable field of a route that declares `sort`: one its filters compare by order (`field[gt]`). An
 * aggregate's `sort` (beside `groupBy`) orders its groups by group keys and measures, not by the fields.
 */
function sortFieldOf(query: Map<string, Json>): string | undefined {
  if (!query.has('sort') || query.has('groupBy')) return undefined;
  const ordered = [...query.keys()].filter((name) => name.endsWith('[gt]')).map((name) => name.slice(0, -4));
  return ordered.find((name) => name === 'createdAt') ?? ordered[0];
}

/** A declared query parameter that takes any text (no enum, pattern or format): where a value could become SQL. */
function isFreeText(schema: Json): boolean {
  const types = [schema.type ?? 'string'].flat();
  return types.includes('string') && !schema.enum && !schema.pattern && !schema.format;
}

/** A GraphQL input that takes text: an argument or input field of type String, ID or an enum. */
interface GraphqlLeaf {
  operation: 'query' | 'mutation';
  field: string;
  /** The argument's name, then input field names down to the leaf. */
  path: string[];
  enumeration: boolean;
}

function graphqlLeaves(schema: GraphQLSchema): GraphqlLeaf[] {
  const leaves: GraphqlLeaf[] = [];
  const walk = (base: Pick<GraphqlLeaf, 'operation' | 'field'>, type: GraphQLInputType, path: string[]) => {
    const named = getNamedType(type);
    if (isInputObjectType(named)) {
      if (path.length > 4) return;
      for (const field of Object.values(named.getFields())) walk(base, field.type, [...path, field.name]);
    } else if (isEnumType(named) || (isScalarType(named) && (named.name === 'String' || named.name === 'ID'))) {
      leaves.push({ ...base, path, enumeration: isEnumType(named) });
    }
  };
  for (const operation of ['query', 'mutation'] as const) {
    const root = operation === 'query' ? schema.getQueryType() : schema.getMutationType();
    for (const field of Object.values(root?.getFields() ?? {}))
      for (const arg of field.args) walk({ operation, field: field.name }, arg.type, [arg.name]);
  }
  return leaves;
}

/** A comparison operator of a filter input (`name: {gte: ...}`). */
const isComparison = (leaf: GraphqlLeaf): boolean => COMPARISON.test(`[${leaf.path.at(-1)}]`);

/** A GraphQL literal for a JSON value (objects, lists, strings, numbers, booleans). */
function literalOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literalOf).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${key}: ${literalOf(item)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

for (const dialect of DIALECTS) {
  describe(
    `SQL-shaped input in every query parameter, header and GraphQL input (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      let tokens: Record<Who, string>;
      let fixtures: Record<string, string>;
      /** A revision of each fixture item, by its path's resource (`/users/...`). */
      let revisions: Record<string, string>;
      /** The fixture a path parameter of `url` takes: `:rev` the revision of the item the path names. */
      const fixtureOf = (url: string, name: string): string | undefined =>
        name === 'rev' ? revisions[/\/(users|posts|comments|products)\//.exec(url)?.[1] ?? ''] : fixtures[name];
      /** A pending order of its own, for the order actions that read `Idempotency-Key`. */
      let actionOrderId: string;
      let routes: GetRoute[];
      let documents: Map<string, Json>;
      let timePayloads: Payloads;
      let allPayloads: string[];
      /** Answers without any probe, by `who|path` (with `?sort=...` for a route's sort companion). */
      const baselines = new Map<string, Answer>();

      before(async () => {
        t = await startTestServer(dialect, {
          ...SECURITY_TEST_ENV,
          RATE_LIMIT_MAX: '100000000',
          RATE_LIMIT_AUTH_MAX: '100000000',
          REPORT_WORKER: 'false',
        });
        // SQLite: about 3 s where PostgreSQL sleeps 2 s, measured on this machine now: a machine less busy
        // later than now still takes well over SLOWER_BY_MS.
        timePayloads = timeBased(dialect.name, dialect.name === 'sqlite' ? await sqliteHeavyRows(3000) : 0);
        allPayloads = [JUNK, ...ERROR_SHAPED, ...EXPRESSION_SHAPED, ...timePayloads.map(([, p]) => p)];

        // One row of every kind a GET route names, owned by the plain user, made through the API.
        const owner = await t.createUser({ name: 'Injection owner' });
        tokens = { admin: t.adminToken, user: owner.token };
        const made = async (method: string, path: string, token: string, body?: unknown) => {
          const answer = await t.request(method, path, { token, ...(body === undefined ? {} : { body }) });
          assert.ok(answer.status >= 200 && answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
          return answer;
        };
        const product = await made('POST', '/api/products', t.adminToken, {
          name: 'Injection target',
          category: 'injection',
          price: 5,
          stock: 1_000_000,
        });
        const post = await made('POST', `/api/users/${owner.id}/posts`, owner.token, {
          title: 'Probe',
          content: 'Probe',
        });
        const comment = await made('POST', `/api/posts/${post.body.id}/comments`, owner.token, { text: 'Probe' });
        await made('POST', `/api/comments/${comment.body.id}/likes`, owner.token);
        const items = { items: [{ productId: product.body.id, quantity: 1 }] };
        const order = await made('POST', '/api/orders', owner.token, items);
        await made('POST', `/api/orders/${order.body.id}/pay`, owner.token); // a receipt to read
        actionOrderId = String((await made('POST', '/api/orders', owner.token, items)).body.id);
        const report = await made('POST', '/api/reports/generate', t.adminToken, { type: 'users' });
        const webhook = await made('POST', '/api/webhooks', t.adminToken, {
          url: 'https://shop.example.com/hooks/injection',
          events: ['user.deleted'], // nothing here deletes a user: no delivery leaves the machine
        });
        const upload = await fetch(`${t.url}/api/v2/imports?resource=posts&dryRun=true`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
          body: 'title,content\nProbe,Probe\n',
        });
        assert.equal(upload.status, 202, await upload.clone().text());
        const importId = ((await upload.json()) as Json).id;
        // A revision of each item (DECISIONS §19): `:rev` takes the one of the item its path names (fixtureOf).
        const revOf = async (path: string) =>
          String((await made('GET', `/api/v2${path}/revisions?limit=1`, t.adminToken)).body.data[0].rev);
        revisions = {
          users: await revOf(`/users/${owner.id}`),
          products: await revOf(`/products/${product.body.id}`),
          posts: await revOf(`/posts/${post.body.id}`),
          comments: await revOf(`/comments/${comment.body.id}`),
        };
        fixtures = Object.fromEntries(
          Object.entries({
            userId: owner.id,
            customerId: owner.id,
            productId: product.body.id,
            postId: post.body.id,
            commentId: comment.body.id,
            orderId: order.body.id,
            reportId: report.headers.get('location')!.split('/').pop(),
            webhookId: webhook.body.id,
            importId,
          }).map(([key, value]) => [key, String(value)]),
        );

        documents = new Map();
        for (const { prefix } of API_PREFIXES) {
          const answer = await fetch(`${t.url}${prefix}/openapi.json`);
          assert.equal(answer.status, 200, `${prefix}/openapi.json`);
          documents.set(prefix, (await answer.json()) as Json);
        }
        // Longest prefix first: `/api/v2/x` is v2's, not `/api`'s.
        const prefixes = [...API_PREFIXES].sort((a, b) => b.prefix.length - a.prefix.length);
        routes = servedRoutes(t.server.app.http)
          .map((route) => route.split(' ') as [string, string])
          // The route table lives under `<prefix>/`; the documents and the bare prefixes (the front door's
          // index, navigation like the documents) are not REST resources and read no query.
          .filter(
            ([method, url]) =>
              method === 'GET' &&
              url.startsWith('/api/') &&
              !url.endsWith('/openapi.json') &&
              !API_PREFIXES.some(({ prefix }) => url === prefix),
          )
          .flatMap(([, url]): GetRoute[] => {
            const { prefix, version } = prefixes.find((p) => url.startsWith(`${p.prefix}/`))!;
            const document = documents.get(prefix)!;
            const template = url.slice(prefix.length).replace(/:(\w+)/g, '{$1}');
            const operation = document.paths?.[template]?.get as Json | undefined;
            // A v2-only route is in `/api`'s table for a negotiated v2, not in its (v1) document: it is
            // probed under /api/v2, whose document has it (and `/api` refuses it in v1, tested in core/http).
            if (!operation && prefix === '/api' && documents.get('/api/v2')!.paths?.[template]?.get) return [];
            assert.ok(operation, `GET ${url} is served but not in ${prefix}/openapi.json, so it cannot be probed`);
            const parameters = ((operation.parameters ?? []) as Json[]).map((p) => resolveParameter(document, p));
            const pathParams = [...url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
            for (const name of pathParams)
              assert.ok(fixtureOf(url, name), `GET ${url}: no row made for :${name}; add one to the fixtures`);
            const query = new Map(
              parameters.filter((p) => p.in === 'query').map((p) => [p.name as string, (p.schema ?? {}) as Json]),
            );
            return [
              {
                prefix,
                // The negotiated `/api` answers as v1 without a version signal.
                version: version ?? 1,
                url,
                template,
                path: pathParams.reduce((path, name) => path.replace(`:${name}`, fixtureOf(url, name)!), url),
                pathParams,
                query,
                headers: parameters.filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase()),
                list: query.has('limit'),
                sortField: sortFieldOf(query),
              },
            ];
          });
        assert.ok(routes.length >= 30, `only ${routes.length} GET routes found`);

        // The answers without any probe. An administrator gets every route: else the probes would not reach SQL.
        const unreached = new Findings();
        const keys = routes.flatMap((route) =>
          (['admin', 'user'] as const).flatMap((who) => [
            [who, route.path] as const,
            ...(route.sortField ? [[who, `${route.path}?sort=${route.sortField}`] as const] : []),
          ]),
        );
        await inPool(keys, CONCURRENCY, async ([who, path]) => {
          const answer = await hit(t, { method: 'GET', path, headers: { authorization: `Bearer ${tokens[who]}` } });
          baselines.set(`${who}|${path}`, answer);
          if (who === 'admin' && !(answer.status >= 200 && answer.status < 300))
            unreached.add('not 2xx without probes', `GET ${path} → ${answer.status} ${answer.text.slice(0, 200)}`);
        });
        unreached.assertNone(`every GET route answers an administrator (${dialect.name})`);
      });
      after(() => t?.close());

      /** Sends the probes, CONCURRENCY at a time, and checks them. */
      async function sweep(probes: readonly Probe[]): Promise<Findings> {
        const checker = new Checker(allPayloads, baselines);
        await inPool(probes, CONCURRENCY, async (probe) => {
          const sent = {
            ...probe.sent,
            headers: { ...probe.sent.headers, authorization: `Bearer ${tokens[probe.who]}` },
          };
          checker.check(probe, await hit(t, sent));
        });
        return checker.finish();
      }

      /** The same route under v2, when the route table serves it there. */
      const inV2 = (route: GetRoute) => routes.find((r) => r.prefix === '/api/v2' && r.template === route.template);

      /** The payloads one caller sends in one query parameter of one route, or none (see the file's comment). */
      function queryPayloads(route: GetRoute, name: string, who: Who): Payloads | undefined {
        const admin = who === 'admin';
        if (route.query.has(name)) {
          if (route.prefix === '/api') return undefined;
          const same = route.version !== 2 && inV2(route)?.query.get(name);
          if (same && JSON.stringify(same) === JSON.stringify(route.query.get(name))) return undefined;
          if (COMPARISON.test(name)) return admin ? PAYLOADS.core : PAYLOADS.minimal;
          return admin ? PAYLOADS.full : PAYLOADS.core;
        }
        if (route.prefix === '/api') return admin && route.list ? PAYLOADS.minimal : undefined;
        // In v1 an undeclared name still reaches the handler: the names of a sort get the most there.
        const sorting = /sort|order|dir/i.test(name);
        if (route.version === 1 && admin) return sorting && route.list ? PAYLOADS.full : PAYLOADS.core;
        return admin && route.list ? PAYLOADS.core : PAYLOADS.minimal;
      }

      /** Probes of one query parameter of one route: alone and, for a guessed direction, beside a valid sort. */
      function parameterProbes(route: GetRoute, name: string, who: Who, payloads: Payloads): Probe[] {
        const declared = route.query.has(name);
        const companions: ([string, string] | undefined)[] = [undefined];
        if (!declared && route.sortField && (GUESSED_DIRECTIONS as readonly string[]).includes(name))
          companions.push(['sort', route.sortField]);
        return companions.flatMap((companion) =>
          payloads.map(([shape, payload]): Probe => {
            const pairs: [string, string][] = [...(companion ? [companion] : []), [name, payload]];
            return {
              who,
              group: `${route.url} ${name}${companion ? ` beside sort=${companion[1]}` : ''}`,
              shape,
              payload,
              sent: { method: 'GET', path: `${route.path}${queryString(pairs)}`, headers: {} },
              ...(declared
                ? {}
                : {
                    undeclared: {
                      name,
                      version: route.version,
                      baseline: `${route.path}${companion ? `?sort=${companion[1]}` : ''}`,
                    },
                  }),
            };
          }),
        );
      }

      let querySweep: Promise<{ findings: Findings; summary: string }> | undefined;

      /** Every query parameter (declared and guessed) of every GET route, and every path id: sent once, read by two tests. */
      function sweepQueries(): Promise<{ findings: Findings; summary: string }> {
        querySweep ??= (async () => {
          const probes = routes.flatMap((route) =>
            [...new Set([...route.query.keys(), ...GUESSED_PARAMETERS])].flatMap((name) =>
              (['admin', 'user'] as const).flatMap((who) => {
                const payloads = queryPayloads(route, name, who);
                return payloads ? parameterProbes(route, name, who, payloads) : [];
              }),
            ),
          );
          // Path ids as an administrator under v2 (ids are read before any caller rule, alike in every version).
          const pathProbes = routes
            .filter((route) => route.prefix === '/api/v2')
            .flatMap((route) =>
              route.pathParams.flatMap((name) =>
                PAYLOADS.full.map(([shape, payload]): Probe => ({
                  who: 'admin',
                  group: `${route.url} :${name}`,
                  shape,
                  payload,
                  sent: {
                    method: 'GET',
                    path: route.pathParams.reduce(
                      (path, other) =>
                        path.replace(
                          `:${other}`,
                          other === name ? encodeURIComponent(payload) : fixtureOf(route.url, other)!,
                        ),
                      route.url,
                    ),
                    headers: {},
                  },
                })),
              ),
            );
          const started = performance.now();
          const findings = await sweep([...probes, ...pathProbes]);
          const inputs = new Set(probes.map((p) => p.group));
          const undeclared = new Set(probes.filter((p) => p.undeclared).map((p) => p.group));
          const summary =
            `${routes.length} GET routes under ${API_PREFIXES.map((p) => p.prefix).join(', ')}: ` +
            `${inputs.size - undeclared.size} declared and ${undeclared.size} undeclared (route, parameter) inputs, ` +
            `${new Set(pathProbes.map((p) => p.group)).size} path ids; ${probes.length + pathProbes.length} requests ` +
            `(${probes.filter((p) => p.who === 'user').length} as a plain user) in ${Math.round(performance.now() - started)} ms`;
          return { findings, summary };
        })();
        return querySweep;
      }

      it('answers the declared and guessed query parameters and path ids of every GET route with SQL-shaped values without a 5xx, database text or an expression accepted where junk is refused', async (context: TestContext) => {
        const { findings, summary } = await sweepQueries();
        context.diagnostic(summary);
        findings
          .filter((kind) => !UNDECLARED_KINDS.has(kind))
          .assertNone(`SQL-shaped query parameters and path ids (${dialect.name})`);
      });

      it('refuses an undeclared query parameter with 422 naming it in v2, and answers in v1 and on /api as if it were absent', async (context: TestContext) => {
        const { findings, summary } = await sweepQueries();
        context.diagnostic(summary);
        findings
          .filter((kind) => UNDECLARED_KINDS.has(kind))
          .assertNone(`undeclared query parameters (${dialect.name})`);
      });

      it('answers time-based SQL in order, sort and every free-text parameter of every GET route, and in every GraphQL text input, no slower than plain junk', async (context: TestContext) => {
        const payloads: Payloads = [['junk', JUNK], ...timePayloads];
        const probes: Probe[] = [];
        for (const route of routes.filter((r) => r.prefix !== '/api'))
          for (const who of ['admin', 'user'] as const) {
            // `order` and `sort` everywhere, declared or not, as either caller; an administrator also every
            // declared free-text parameter (each once, as in the sweep; one comparison operator stands for six).
            const names = [...route.query.keys()].filter(
              (name) =>
                who === 'admin' &&
                !TIMED_ALWAYS.includes(name) &&
                !(COMPARISON.test(name) && !name.endsWith('[eq]')) &&
                isFreeText(route.query.get(name)!) &&
                queryPayloads(route, name, who) !== undefined,
            );
            for (const name of [...TIMED_ALWAYS, ...names]) probes.push(...parameterProbes(route, name, who, payloads));
          }
        // GraphQL: each text input once as a variable (one comparison operator of a filter stands for six).
        const graphql = await graphqlProbes('admin', 'variable', (leaf) =>
          isComparison(leaf) && leaf.path.at(-1) !== 'eq' ? undefined : payloads,
        );
        probes.push(...graphql);

        const checker = new Checker(allPayloads, baselines);
        const junkOf = new Map<string, [Probe, Answer]>();
        let slow = 0;
        let skipped = 0;
        const send = (probe: Probe) =>
          hit(t, { ...probe.sent, headers: { ...probe.sent.headers, authorization: `Bearer ${tokens[probe.who]}` } });
        const started = performance.now();
        // One request at a time: a statement that blocks SQLite (or holds a connection) would slow its neighbours too.
        for (const probe of probes) {
          if (slow >= SLOW_FINDINGS_BEFORE_STOP) {
            skipped += 1;
            continue;
          }
          const key = `${probe.who}|${probe.group}`;
          let answer = await send(probe);
          if (probe.shape === 'junk') junkOf.set(key, [probe, answer]);
          const junk = junkOf.get(key);
          if (probe.shape === 'time' && junk && answer.ms - junk[1].ms > SLOWER_BY_MS) {
            // Once more, junk first: a pause of the machine is not the database running a payload.
            const again = await send(junk[0]);
            answer = await send(probe);
            if (answer.ms - again.ms > SLOWER_BY_MS) {
              slow += 1;
              checker.findings.add(
                'answer slowed by a time-based payload',
                `${describeProbe(probe)} → ${answer.status} after ${Math.round(answer.ms)} ms, junk ${Math.round(again.ms)} ms`,
              );
            }
          }
          checker.check(probe, answer);
        }
        const findings = checker.finish();
        context.diagnostic(
          `${new Set(probes.map((p) => `${p.who}|${p.group}`)).size} inputs (${graphql.length / payloads.length} GraphQL), ` +
            `${timePayloads.length} payloads each (${dialect.name === 'sqlite' ? 'a recursive CTE of about 3 s' : 'pg_sleep(2)'}), ` +
            `${probes.length - skipped} requests one at a time in ${Math.round(performance.now() - started)} ms` +
            (skipped > 0 ? `; ${skipped} skipped after ${slow} slow answers` : ''),
        );
        findings.assertNone(`time-based payloads (${dialect.name})`);
      });

      it('answers SQL-shaped values in the headers it reads (If-None-Match, API-Version, Accept, Last-Event-ID, Idempotency-Key, If-Match) without a 5xx, database text or an expression accepted where junk is refused', async (context: TestContext) => {
        const probes: Probe[] = [];
        const names = new Set<string>();
        const add = (
          group: string,
          sent: (payload: string) => Sent,
          who: Who,
          payloads: Payloads,
          commaList = false,
        ) => {
          for (const [shape, payload] of payloads)
            probes.push({ who, group, shape, payload, sent: sent(payload), ...(commaList ? { commaList } : {}) });
        };
        const onGet = (route: GetRoute, header: string, value: (payload: string) => string) => (payload: string) => ({
          method: 'GET',
          path: route.path,
          headers: { [header]: value(payload) },
        });
        const same = (payload: string) => payload;
        for (const route of routes) {
          for (const header of route.headers) {
            if (header === 'if-none-match' && route.prefix === '/api/v2')
              add(`${route.url} ${header}`, onGet(route, header, same), 'admin', PAYLOADS.core, true);
            else if (header !== 'api-version' && header !== 'if-none-match') {
              // Any other header a GET route declares (Last-Event-ID): every prefix, both callers.
              add(`${route.url} ${header}`, onGet(route, header, same), 'admin', PAYLOADS.full);
              add(`${route.url} ${header}`, onGet(route, header, same), 'user', PAYLOADS.core);
            } else continue;
            names.add(header);
          }
          // `API-Version` and `Accept` are declared nowhere (the documents' paths are under a version's own
          // prefix, where they decide nothing) and read everywhere under the negotiated `/api`.
          if (route.prefix === '/api') {
            add(`${route.url} api-version`, onGet(route, 'api-version', same), 'admin', PAYLOADS.full);
            names.add('api-version');
            add(`${route.url} accept`, onGet(route, 'accept', same), 'admin', PAYLOADS.core, true);
            add(
              `${route.url} accept (vendor)`,
              onGet(route, 'accept', (payload) => `application/vnd.content.v${payload}+json`),
              'admin',
              PAYLOADS.core,
              true,
            );
            names.add('accept');
          }
        }
        // Writes that read a header: `Idempotency-Key` (with the documented body, on rows of their own) and
        // `If-Match` on a PATCH that changes nothing.
        for (const prefix of ['/api/v1', '/api/v2']) {
          const document = documents.get(prefix)!;
          for (const [template, item] of Object.entries(document.paths as Json)) {
            for (const [method, operation] of Object.entries(item as Json)) {
              if (method === 'get' || typeof operation !== 'object' || !Array.isArray(operation.parameters)) continue;
              const headers = (operation.parameters as Json[])
                .map((p) => resolveParameter(document, p))
                .filter((p) => p.in === 'header')
                .map((p) => String(p.name).toLowerCase());
              const idempotent = headers.includes('idempotency-key');
              const conditional = method === 'patch' && headers.includes('if-match');
              if (!idempotent && !conditional) continue;
              const path = `${prefix}${template.replace(/\{(\w+)\}/g, (_, name: string) => {
                assert.ok(fixtureOf(template, name), `${method} ${template}: no row made for {${name}}`);
                return name === 'orderId' ? actionOrderId : fixtureOf(template, name)!;
              })}`;
              const media = Object.values((operation.requestBody?.content ?? {}) as Json)[0] as Json | undefined;
              const body = conditional ? {} : media ? withFixtures(media.example ?? {}) : undefined;
              const header = idempotent ? 'idempotency-key' : 'if-match';
              names.add(header);
              const sent = (payload: string): Sent => ({
                method: method.toUpperCase(),
                path,
                headers: { [header]: payload, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
                ...(body === undefined ? {} : { body: JSON.stringify(body) }),
              });
              const group = `${method.toUpperCase()} ${prefix}${template} ${header}`;
              add(group, sent, 'admin', PAYLOADS.core);
              if (idempotent) add(group, sent, 'user', PAYLOADS.full);
            }
          }
        }
        for (const header of ['if-none-match', 'api-version', 'accept', 'last-event-id', 'idempotency-key', 'if-match'])
          assert.ok(
            names.has(header),
            `no request carries ${header}: the routes that read it are gone or undocumented`,
          );

        const started = performance.now();
        const findings = await sweep(probes);
        context.diagnostic(
          `${[...names].join(', ')}: ${new Set(probes.map((p) => `${p.who}|${p.group}`)).size} (request, header) inputs, ` +
            `${probes.length} requests in ${Math.round(performance.now() - started)} ms`,
        );
        findings.assertNone(`SQL-shaped headers (${dialect.name})`);
      });

      it('answers SQL-shaped GraphQL text arguments and variables of every root field without a server error, database text or an expression accepted where junk is refused', async (context: TestContext) => {
        const probes = [
          ...(await graphqlProbes('admin', 'variable', (leaf) => (isComparison(leaf) ? PAYLOADS.core : PAYLOADS.full))),
          ...(await graphqlProbes('admin', 'literal', (leaf) => (leaf.enumeration ? undefined : PAYLOADS.minimal))),
          ...(await graphqlProbes('user', 'variable', () => PAYLOADS.minimal)),
        ];
        const started = performance.now();
        const findings = await sweep(probes);
        const leaves = graphqlLeaves(await servedSchema());
        context.diagnostic(
          `${leaves.length} text inputs of ${new Set(leaves.map((l) => `${l.operation} ${l.field}`)).size} root fields, ` +
            `${probes.length} requests in ${Math.round(performance.now() - started)} ms`,
        );
        findings.assertNone(`SQL-shaped GraphQL inputs (${dialect.name})`);
      });

      /** A documented example body with its ids replaced by those of the fixtures (`productId: 17` → a real product). */
      function withFixtures(value: unknown): unknown {
        if (Array.isArray(value)) return value.map(withFixtures);
        if (value === null || typeof value !== 'object') return value;
        return Object.fromEntries(
          Object.entries(value).map(([key, item]) => [
            key,
            fixtures[key] !== undefined && typeof item === 'number' ? Number(fixtures[key]) : withFixtures(item),
          ]),
        );
      }

      let schema: Promise<GraphQLSchema> | undefined;

      /** The schema as served (introspection, as an administrator). */
      function servedSchema(): Promise<GraphQLSchema> {
        schema ??= (async () => {
          const answer = await t.request('POST', '/graphql', {
            token: t.adminToken,
            body: { query: getIntrospectionQuery() },
          });
          assert.equal(answer.status, 200, answer.text.slice(0, 300));
          return buildClientSchema(answer.body.data as IntrospectionQuery);
        })();
        return schema;
      }

      let serial = 0;

      /**
       * One probe per GraphQL text input and payload: the input's argument passed as a variable, or written
       * into the document as a literal; every other required argument sane (a real id, a fresh e-mail).
       */
      async function graphqlProbes(
        who: Who,
        mode: 'variable' | 'literal',
        payloadsOf: (leaf: GraphqlLeaf) => Payloads | undefined,
      ): Promise<Probe[]> {
        const served = await servedSchema();
        const leaves = graphqlLeaves(served);
        assert.ok(leaves.length >= 10, `only ${leaves.length} GraphQL text inputs found`);
        const sane = (type: GraphQLInputType, name: string, field: string): unknown => {
          const inner = isNonNullType(type) ? type.ofType : type;
          if (isListType(inner)) return [sane(inner.ofType, name, field)];
          if (isInputObjectType(inner))
            return Object.fromEntries(
              Object.values(inner.getFields())
                .filter((f) => isNonNullType(f.type))
                .map((f) => [f.name, sane(f.type, f.name, field)]),
            );
          if (isEnumType(inner)) return inner.getValues()[0]!.value;
          switch (inner.name) {
            case 'ID':
              return name === 'id' && /post/i.test(field) ? fixtures.postId : fixtures.userId;
            case 'Int':
            case 'Float':
              return 5;
            case 'Boolean':
              return true;
            default:
              return name === 'email' ? `probe${(serial += 1)}-${Date.now()}@example.com` : 'Injection probe';
          }
        };
        const valueAt = (type: GraphQLInputType, rest: string[], payload: string, field: string): unknown => {
          const inner = isNonNullType(type) ? type.ofType : type;
          if (isListType(inner)) return [valueAt(inner.ofType, rest, payload, field)];
          if (isInputObjectType(inner)) {
            const [next, ...deeper] = rest;
            return {
              ...(sane(inner, '', field) as Json),
              [next!]: valueAt(inner.getFields()[next!]!.type, deeper, payload, field),
            };
          }
          return payload;
        };
        const probes: Probe[] = [];
        for (const leaf of leaves) {
          const payloads = payloadsOf(leaf);
          if (!payloads) continue;
          const root = leaf.operation === 'query' ? served.getQueryType()! : served.getMutationType()!;
          const field = root.getFields()[leaf.field]!;
          for (const [shape, payload] of payloads) {
            const variables: Json = {};
            const declared: string[] = [];
            const passed: string[] = [];
            for (const arg of field.args) {
              const onPath = arg.name === leaf.path[0];
              if (!onPath && !isNonNullType(arg.type)) continue;
              const value = onPath
                ? valueAt(arg.type, leaf.path.slice(1), payload, field.name)
                : sane(arg.type, arg.name, field.name);
              if (onPath && mode === 'literal') passed.push(`${arg.name}: ${literalOf(value)}`);
              else {
                variables[arg.name] = value;
                declared.push(`$${arg.name}: ${arg.type.toString()}`);
                passed.push(`${arg.name}: $${arg.name}`);
              }
            }
            const selection = isScalarType(getNamedType(field.type)) ? '' : ' { __typename }';
            const signature = declared.length > 0 ? ` (${declared.join(', ')})` : '';
            const call = passed.length > 0 ? `(${passed.join(', ')})` : '';
            probes.push({
              who,
              group: `${leaf.operation} ${leaf.field} ${leaf.path.join('.')} ${mode}`,
              shape,
              payload,
              graphql: true,
              sent: {
                method: 'POST',
                path: '/graphql',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({
                  query: `${leaf.operation}${signature} { ${field.name}${call}${selection} }`,
                  variables,
                }),
              },
            });
          }
        }
        return probes;
      }
    },
  );
}
