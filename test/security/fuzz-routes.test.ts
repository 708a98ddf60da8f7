import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { typeDefs } from '../../src/graphql/schema.ts';
import { DIALECTS } from '../support/dialects.ts';
import { servedRoutes } from '../support/served-routes.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { anyBody, hostileJson, hostileText } from './fuzz-arbitraries.test-support.ts';
import { createChecker, FUZZ_ENV, FUZZ_SEED, runs, send } from './fuzz.test-support.ts';

/**
 * Hostile input for every operation the app serves, derived from the app itself: the route list from
 * Fastify's route tree (a new route is fuzzed without editing this file) and each route's parameters
 * and body fields from its OpenAPI operation. Each request starts from the operation's documented
 * example (so it reaches the services) and swaps in extreme integers, exponent notation, NUL, unpaired
 * surrogates, huge strings, prototype keys or odd content types. Invariants (fuzz.test-support.ts):
 * no 5xx, the one error envelope on every 4xx, no change from a refused request; the server stays up.
 * Replay a failure with FUZZ_SEED=<seed printed by fast-check>.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Operation {
  method: string;
  url: string;
  pathParams: string[];
  queryParams: string[];
  body: { example: unknown; fields: string[][]; contentType: string } | undefined;
}

/** Keys that are not fields: prototype poisoning (refused by the JSON parser) and an unknown name. */
const ODD_KEYS = [['__proto__'], ['constructor', 'prototype'], ['unknownField']];
const ODD_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  'image/png',
  'application/xml',
];
const RAW = Symbol('raw JSON text');
type Raw = { [RAW]: string };

/** The operations to fuzz: every served `/api/...` route (the versioned copies share its handlers), described by the OpenAPI document. */
function operationsOf(t: TestServer, document: Json): Operation[] {
  return (
    servedRoutes(t.server.app.http)
      .map((route) => route.split(' ') as [string, string])
      // The bare `/api/v1` and `/api/v2` are the front door's copies of `/api` (an index, in no API document).
      .filter(
        ([, url]) => url.startsWith('/api/') && !/^\/api\/v\d+(?=\/|$)/.test(url) && !url.endsWith('/openapi.json'),
      )
      .map(([method, url]) => {
        const operation = document.paths[url.slice('/api'.length).replace(/:(\w+)/g, '{$1}')]?.[
          method.toLowerCase()
        ] as Json | undefined;
        assert.ok(operation, `${method} ${url} is served but not documented, so it cannot be fuzzed`);
        const parameters = (operation.parameters ?? []) as Json[];
        const [contentType, media] = (Object.entries(operation.requestBody?.content ?? {})[0] ?? []) as [
          string?,
          Json?,
        ];
        const schema = media?.schema ?? {};
        const fields = Object.entries((schema.properties ?? {}) as Json).flatMap(([name, property]) => [
          [name],
          ...Object.keys(property.items?.properties ?? {}).map((sub) => [name, '0', sub]),
        ]);
        return {
          method,
          url,
          pathParams: [...url.matchAll(/:(\w+)/g)].map((m) => m[1]!),
          queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name as string),
          body: contentType
            ? { example: media?.example ?? {}, fields: fields.length > 0 ? fields : [['unknownField']], contentType }
            : undefined,
        };
      })
  );
}

/** The example with hostile JSON text set at some paths (or fields removed), as JSON text. */
function mutatedBody(example: unknown, changes: [string[], string | null][]): string {
  const tree = structuredClone(example ?? {}) as Json;
  for (const [path, raw] of changes) {
    let node: Json = tree;
    for (const key of path.slice(0, -1)) {
      if (node[key] === null || typeof node[key] !== 'object')
        Object.defineProperty(node, key, { value: {}, enumerable: true, writable: true, configurable: true });
      node = node[key];
    }
    const last = path.at(-1)!;
    if (raw === null) delete node[last];
    else
      Object.defineProperty(node, last, {
        value: { [RAW]: raw } satisfies Raw,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  const write = (value: unknown): string => {
    if (value !== null && typeof value === 'object' && RAW in value) return (value as Raw)[RAW];
    if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
    if (value !== null && typeof value === 'object')
      return `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}:${write(v)}`)
        .join(',')}}`;
    return JSON.stringify(value) ?? 'null';
  };
  return write(tree);
}

interface GraphQLOperation {
  args: { name: string; type: GraphQLInputType }[];
  /** The document, with each argument written as the given literal or else passed as a variable. */
  build(literals: Record<string, string>): string;
}

/** Refused before anything ran: a 4xx, or errors without data. */
function refusedOutright(answer: { status: number; body: { data?: unknown } | undefined }): boolean {
  return answer.status >= 400 || (answer.body !== undefined && !('data' in answer.body));
}

/** One operation per root field of the schema (a new field is fuzzed without editing this file). */
function graphqlOperations(schema: GraphQLSchema): GraphQLOperation[] {
  return (['query', 'mutation'] as const).flatMap((kind) => {
    const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
    return Object.values(root?.getFields() ?? {}).map((field) => ({
      args: field.args.map((a) => ({ name: a.name, type: a.type })),
      build(literals: Record<string, string>) {
        const variables = field.args.filter((a) => literals[a.name] === undefined);
        const declared = variables.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
        const passed = field.args.map((a) => `${a.name}: ${literals[a.name] ?? `$${a.name}`}`).join(', ');
        const selection = isScalarType(getNamedType(field.type)) ? '' : ' { __typename }';
        return `${kind}${declared ? ` (${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
      },
    }));
  });
}

/** A variable value for a GraphQL input type: the right shape, with hostile leaves. */
function variableValue(type: GraphQLInputType, name: string, leaf: (name: string) => unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [variableValue(inner.ofType, name, leaf)];
  if (isInputObjectType(inner))
    return Object.fromEntries(
      Object.values(inner.getFields()).map((f) => [f.name, variableValue(f.type, f.name, leaf)]),
    );
  return leaf(name);
}

for (const dialect of DIALECTS) {
  describe(`hostile input on every served operation (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let checker: ReturnType<typeof createChecker>;
    let tokens: (string | undefined)[];
    let fixtures: Record<string, string>;
    let operations: Operation[];
    let restoreFixtures: () => Promise<void>;

    before(async () => {
      t = await startTestServer(dialect, { ...FUZZ_ENV, REPORT_WORKER: 'false' });
      const owner = await t.createUser();
      const product = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: { name: 'Fuzz', category: 'fuzz', price: 5, stock: 1_000_000 },
      });
      const post = await t.request('POST', `/api/users/${owner.id}/posts`, {
        token: owner.token,
        body: { title: 'Fuzz', content: 'Fuzz' },
      });
      const comment = await t.request('POST', `/api/posts/${post.body.id}/comments`, {
        token: owner.token,
        body: { text: 'Fuzz' },
      });
      await t.request('POST', `/api/comments/${comment.body.id}/likes`, { token: owner.token });
      const order = await t.request('POST', '/api/orders', {
        token: owner.token,
        body: { items: [{ productId: product.body.id, quantity: 1 }] },
      });
      const report = await t.request('POST', '/api/reports/generate', { token: t.adminToken, body: { type: 'users' } });
      const ids = {
        userId: owner.id,
        customerId: owner.id,
        productId: product.body.id,
        postId: post.body.id,
        commentId: comment.body.id,
        orderId: order.body.id,
        reportId: report.headers.get('location')!.split('/').pop(),
      };
      fixtures = Object.fromEntries(Object.entries(ids).map(([k, v]) => [k, String(v)]));
      tokens = [undefined, owner.token, t.adminToken];
      operations = operationsOf(t, (await t.request('GET', '/api/v2/openapi.json')).body);
      restoreFixtures = async () => {
        // A successful admin write may suspend, demote or rename the owner: put it back so later runs still get past the access check.
        await t.server.db
          .updateTable('users')
          .set({ status: 'active', role: 'user' })
          .where('id', '=', owner.id)
          .execute();
        await checker.reset();
      };
      checker = createChecker(t);
      await checker.reset();
    });
    after(() => t?.close());

    it('answers every served REST operation with hostile path, query and body values without a 5xx, with the error envelope, and stays up', async (context) => {
      context.diagnostic(
        `fast-check seed ${FUZZ_SEED} (replay: FUZZ_SEED=${FUZZ_SEED}); ${operations.length} operations`,
      );
      const auth = (token: string | undefined): Record<string, string> =>
        token ? { authorization: `Bearer ${token}` } : {};
      await fc.assert(
        fc.asyncProperty(fc.gen(), fc.nat(9), async (g, caller) => {
          // Mostly callers who pass the access check, so values reach validation, services and SQL.
          const who = caller === 0 ? 0 : caller < 5 ? 1 : 2;
          const operation = operations[g(fc.nat, operations.length - 1)]!;
          let path = operation.url;
          for (const name of operation.pathParams) {
            const value = g(fc.boolean) ? (fixtures[name] ?? '1') : g(() => hostileText);
            path = path.replace(`:${name}`, value);
          }
          // One or two parameters at a time, so a hostile value is not hidden behind another one's 422.
          const query = g(fc.subarray, operation.queryParams, {
            maxLength: Math.min(2, operation.queryParams.length),
          }).map((name) => `${name}=${g(() => hostileText)}`);
          const headers: Record<string, string> = auth(tokens[who]);
          let body: string | Uint8Array | undefined;
          if (!operation.body && operation.method !== 'GET' && operation.method !== 'DELETE') {
            // A body the document does not describe (an image upload): bytes and text under any type.
            body = g(fc.boolean) ? g(fc.uint8Array, { maxLength: 4096 }) : g(() => anyBody);
            headers['content-type'] = g(
              fc.constantFrom,
              'image/png',
              'image/jpeg',
              'image/webp',
              'image/svg+xml',
              ...ODD_CONTENT_TYPES,
            );
          } else if (operation.body) {
            const key = fc.oneof(
              { arbitrary: fc.constantFrom(...operation.body.fields), weight: 8 },
              { arbitrary: fc.constantFrom(...ODD_KEYS), weight: 1 },
            );
            const changes = g(fc.array, fc.tuple(key, fc.option(hostileJson, { nil: null, freq: 6 })), {
              minLength: 1,
              maxLength: 2,
            });
            body = g(fc.nat, 7) === 0 ? g(() => anyBody) : mutatedBody(operation.body.example, changes);
            headers['content-type'] =
              g(fc.nat, 5) === 0 ? g(fc.constantFrom, ...ODD_CONTENT_TYPES) : operation.body.contentType;
          }
          // A GET is sometimes sent as a conditional HEAD, as caches and CDNs send them (`*`, or a tag of any shape).
          let method = operation.method;
          if (method === 'GET' && g(fc.nat, 3) === 0) {
            method = 'HEAD';
            headers['if-none-match'] = g(
              fc.constantFrom,
              '*',
              '"x"',
              'W/"x"',
              '"a", *',
              g(() => hostileText).replace(/[^\x20-\x7e]/g, ''),
            );
          }
          const request = { method, path: `${path}${query.length > 0 ? `?${query.join('&')}` : ''}`, headers, body };
          const answer = await send(t, request);
          await checker.check(request, answer);
          if (answer.status < 300 && operation.method !== 'GET') await restoreFixtures();
        }),
        { seed: FUZZ_SEED, numRuns: runs(600) },
      );
      assert.equal((await t.request('GET', '/healthz')).status, 200);
      assert.equal((await t.request('GET', '/readyz')).status, 200);
    });

    it('answers a conditional HEAD on every GET route with 304 and no body, as the GET with the same tag', async () => {
      const gets = operations.filter((o) => o.method === 'GET');
      assert.ok(gets.length >= 10, `only ${gets.length} GET routes found`);
      for (const operation of gets) {
        const path = operation.pathParams.reduce(
          (url, name) => url.replace(`:${name}`, fixtures[name] ?? '1'),
          operation.url,
        );
        const headers = { authorization: `Bearer ${t.adminToken}` };
        const first = await fetch(`${t.url}${path}`, { headers });
        // An event stream never ends and has no tag to revalidate.
        if ((first.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          await first.body?.cancel();
          continue;
        }
        await first.arrayBuffer();
        const etag = first.headers.get('etag');
        if (first.status !== 200 || !etag) continue;
        for (const tag of ['*', etag, `W/${etag}`]) {
          for (const method of ['HEAD', 'GET']) {
            const answer = await fetch(`${t.url}${path}`, { method, headers: { ...headers, 'if-none-match': tag } });
            const text = await answer.text();
            assert.equal(
              answer.status,
              304,
              `${method} ${path} with If-None-Match ${tag}: ${answer.status} ${text.slice(0, 200)}`,
            );
            assert.equal(text, '', `${method} ${path}: a 304 has no body`);
            assert.equal(answer.headers.get('etag'), etag, `${method} ${path}: the 304 names the tag`);
          }
        }
      }
    });

    it('refuses a variable nested 10,000 levels deep with BAD_USER_INPUT on every run of the same document', async () => {
      // Written as text: JSON.stringify itself recurses.
      const deep = `${'{"name":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
      for (const who of [undefined, t.adminToken]) {
        const body = `{"query":"mutation M($input: CreateUserInput!) { createUser(input: $input) { id } }","variables":{"input":${deep}}}`;
        // The first run is refused by variable coercion; later runs take the compiled path, whose checks run first.
        for (let run = 1; run <= 4; run += 1) {
          const request = {
            method: 'POST',
            path: '/graphql',
            headers: { 'content-type': 'application/json', ...(who ? { authorization: `Bearer ${who}` } : {}) },
            body,
          };
          const answer = await send(t, request);
          await checker.check(request, answer, 'graphql');
          const codes = ((answer.body?.errors ?? []) as { extensions?: { code?: string } }[]).map(
            (e) => e.extensions?.code,
          );
          assert.ok(
            codes.length > 0 && codes.every((code) => code === 'BAD_USER_INPUT'),
            `run ${run}: ${answer.status} ${answer.text.slice(0, 300)}`,
          );
          assert.ok(!('data' in answer.body), `run ${run}: nothing executes`);
        }
      }
    });

    it('answers every GraphQL root field with hostile variables and literals without a server error, and stays up', async (context) => {
      context.diagnostic(`fast-check seed ${FUZZ_SEED} (replay: FUZZ_SEED=${FUZZ_SEED})`);
      const graphql = graphqlOperations(buildSchema(typeDefs));
      let serial = 0;
      const saneValue = (name: string): unknown => {
        if (name === 'email') return `fuzz${(serial += 1)}@example.com`;
        if (name === 'id' || name === 'authorId') return fixtures.userId;
        if (name === 'age' || name === 'limit' || name === 'offset') return 5;
        return 'Fuzz';
      };
      await fc.assert(
        fc.asyncProperty(fc.gen(), fc.nat(2), fc.boolean(), async (g, who, literal) => {
          const operation = graphql[g(fc.nat, graphql.length - 1)]!;
          // A sensible value for most leaves (a fresh email, an existing id), so the hostile one reaches the service and the database.
          // Now and then a value nested far past any input type (objects or arrays, up to 20,000 levels),
          // written as JSON text directly (JSON.stringify itself recurses): a placeholder swapped in below.
          const deepTexts: string[] = [];
          const deep = (name: string): unknown => {
            const levels = g(fc.integer, { min: 50, max: 20_000 });
            const [open, close] = g(fc.boolean) ? ['[', ']'] : [`{${JSON.stringify(name)}:`, '}'];
            deepTexts.push(`${open.repeat(levels)}${JSON.stringify(saneValue(name))}${close.repeat(levels)}`);
            return `\u0000deep${deepTexts.length - 1}`;
          };
          const leaf = (name: string) => {
            const pick = g(fc.nat, 11);
            return pick < 4 ? JSON.parse(g(() => hostileJson)) : pick === 4 ? deep(name) : saneValue(name);
          };
          // Scalar arguments are sometimes written into the document (JSON strings and numbers are GraphQL literals).
          const literals: Record<string, string> = {};
          for (const arg of operation.args)
            if (literal && !isInputObjectType(getNamedType(arg.type)) && g(fc.boolean))
              literals[arg.name] = g(() => hostileJson);
          const variables = Object.fromEntries(
            operation.args
              .filter((a) => literals[a.name] === undefined)
              .map((a) => [a.name, variableValue(a.type, a.name, leaf)]),
          );
          const query = operation.build(literals);
          const body = JSON.stringify({ query, variables }).replace(
            /"\\u0000deep(\d+)"/g,
            (_, index: string) => deepTexts[Number(index)]!,
          );
          const request = {
            method: 'POST',
            path: '/graphql',
            headers: {
              'content-type': 'application/json',
              ...(tokens[who] ? { authorization: `Bearer ${tokens[who]}` } : {}),
            },
            body,
          };
          // Three times: the first and second runs of a text take other paths than the third and later.
          for (let run = 1; run <= 3; run += 1) {
            const answer = await send(t, request);
            await checker.check(request, answer, 'graphql');
            const codes = ((answer.body?.errors ?? []) as { extensions?: { code?: string } }[]).map(
              (e) => e.extensions?.code,
            );
            assert.ok(
              !codes.includes('INTERNAL_SERVER_ERROR'),
              `INTERNAL_SERVER_ERROR on run ${run} for ${body.slice(0, 300)}: ${answer.text.slice(0, 300)}`,
            );
            if (!refusedOutright(answer)) break; // an executed mutation is not repeated: it may not be repeatable
          }
        }),
        { seed: FUZZ_SEED, numRuns: runs(300) },
      );
      assert.equal((await t.request('GET', '/healthz')).status, 200);
    });
  });
}
