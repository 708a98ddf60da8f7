/**
 * Hostile run: starts the real service as `npm start` does (NODE_ENV=production, demo data) on a fresh
 * SQLite file and on a fresh PostgreSQL database, and for --seconds sends generated hostile traffic at it:
 * every REST operation of its own OpenAPI documents under /api, /api/v1 and /api/v2, GraphQL over GET and
 * POST, anonymously, as alice and as the admin, plus 2 MiB bodies (Content-Length and chunked).
 * Fails (exit 1) on any 5xx, GraphQL INTERNAL_SERVER_ERROR, reset or other network error, 4xx outside the
 * error envelope, oversized body not answered 413, or a server that is down at the end. Writes the figures
 * into docs/HOSTILE-RUN.md between the markers below (the notes around them are kept).
 *
 *   node scripts/hostile-run.ts [--seconds 60] [--seed N] [--concurrency 16] [--db sqlite,postgres] [--doc docs/HOSTILE-RUN.md]
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
} from 'graphql';
import { typeDefs } from '../src/graphql/schema.ts';
import {
  anyBody,
  authorization,
  headerValue,
  hostileJson,
  hostileText,
  pathSegment,
  queryString,
} from '../test/security/fuzz-arbitraries.test-support.ts';
import { freshDatabase } from './scratch.ts';
import { startServiceProcess } from './service-process.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Body = string | Uint8Array | { chunked: Uint8Array };
interface Probe {
  kind: 'rest' | 'graphql' | 'oversized';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Body;
}
interface Outcome {
  status?: number;
  text?: string;
  failure?: string;
}
interface World {
  tokens: (string | undefined)[];
  selfId: string;
  fixtures: Record<string, string>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    db: { type: 'string', default: 'sqlite,postgres' },
    doc: { type: 'string', default: 'docs/HOSTILE-RUN.md' },
  },
});
const SEED = opts.seed === undefined ? randomBytes(4).readUInt32BE() >>> 1 : Number(opts.seed);
const ADMIN_PASSWORD = `hostile-${randomBytes(12).toString('hex')}`;
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** `npm start`'s command as a child process (scripts/service-process.ts). */
const startService = (databaseUrl: string) =>
  startServiceProcess(ROOT, databaseUrl, { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD });

/** Tokens for anonymous (none), alice and the admin, alice's id and a report id to use as real path values. */
async function prepareWorld(url: string): Promise<World> {
  const post = async (path: string, body: unknown, token?: string) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const signIn = async (email: string, password: string) => {
    const token = ((await (await post('/api/auth/token', { email, password })).json()) as Json).access_token;
    if (typeof token !== 'string') throw new Error(`could not sign in as ${email}`);
    return token;
  };
  const [user, admin] = [
    await signIn('alice@example.com', 'demo-password'),
    await signIn('admin@example.com', ADMIN_PASSWORD),
  ];
  const selfId = String((JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()) as Json).sub);
  const report =
    (await post('/api/reports/generate', { type: 'users' }, admin)).headers.get('location')?.split('/').pop() ?? '1';
  return {
    tokens: [undefined, user, admin],
    selfId,
    fixtures: { userId: selfId, customerId: selfId, reportId: report },
  };
}

interface Operation {
  prefix: string;
  method: string;
  path: string;
  params: Record<'path' | 'query' | 'header', string[]>;
  body?: { example: unknown; fields: string[][]; contentType: string };
}

/** Every operation of an OpenAPI document, served under each of the prefixes. */
function operationsOf(document: Json, prefixes: string[]): Operation[] {
  return Object.entries(document.paths as Json).flatMap(([path, methods]) =>
    Object.entries(methods as Json).flatMap(([method, op]: [string, Json]) => {
      const names = (where: string) =>
        ((op.parameters ?? []) as Json[]).filter((p) => p.in === where).map((p) => p.name as string);
      const [contentType, media] = (Object.entries(op.requestBody?.content ?? {})[0] ?? []) as [string?, Json?];
      const fields = Object.entries((media?.schema?.properties ?? {}) as Json).flatMap(([name, p]) => [
        [name],
        ...Object.keys(p.items?.properties ?? {}).map((sub) => [name, '0', sub]),
      ]);
      const body = contentType
        ? { example: media?.example ?? {}, fields: fields.length > 0 ? fields : [['unknownField']], contentType }
        : undefined;
      return prefixes.map((prefix) => ({
        prefix,
        method: method.toUpperCase(),
        path,
        params: { path: names('path'), query: names('query'), header: names('header') },
        body,
      }));
    }),
  );
}

/** The example body with raw (hostile) JSON text at some paths, or a field removed (null). Own keys, so `__proto__` stays a key. */
function mutatedBody(example: unknown, changes: [string[], string | null][]): string {
  const tree = structuredClone(example ?? {}) as Json;
  const set = (node: Json, key: string, value: unknown) =>
    Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  changes.forEach(([path, raw], i) => {
    let node = tree;
    for (const key of path.slice(0, -1))
      node = node[key] !== null && typeof node[key] === 'object' ? node[key] : set(node, key, {})[key];
    if (raw === null) delete node[path.at(-1)!];
    else set(node, path.at(-1)!, `@@hostile${i}@@`);
  });
  return changes.reduce(
    (text, [, raw], i) => (raw === null ? text : text.replace(`"@@hostile${i}@@"`, () => raw)),
    JSON.stringify(tree),
  );
}

const ODD_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  'image/png',
  'application/xml',
  'application/vnd.content.v2+json',
];
const auth = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** A REST request: a documented operation (sometimes another method), real or hostile path values, hostile query, headers and body. */
function restProbe(operations: Operation[], world: World): fc.Arbitrary<Probe> {
  return fc.gen().map((g) => {
    const op = operations[g(fc.nat, operations.length - 1)]!;
    const headers = g(fc.nat, 14) === 0 ? { authorization: g(() => authorization) } : auth(world.tokens[g(fc.nat, 2)]);
    let path = op.path;
    for (const name of op.params.path)
      path = path.replace(
        `{${name}}`,
        g(fc.boolean)
          ? (world.fixtures[name] ?? String(g(fc.integer, { min: 1, max: 12 })))
          : g(() => fc.oneof(hostileText, pathSegment)),
      );
    const query =
      g(fc.nat, 3) === 0
        ? g(() => queryString)
        : g(fc.subarray, op.params.query, { maxLength: Math.min(2, op.params.query.length) })
            .map((name) => `${name}=${g(() => hostileText)}`)
            .join('&');
    for (const name of op.params.header) if (g(fc.boolean)) headers[name] = g(() => fc.oneof(fc.uuid(), headerValue));
    if (op.prefix === '/api' && g(fc.nat, 9) === 0)
      headers['api-version'] = g(fc.constantFrom, '1', '2', '3', '0', 'x', '99999999999999999999');
    if (g(fc.nat, 9) === 0)
      headers.accept = g(
        fc.constantFrom,
        'application/vnd.content.v2+json',
        'application/vnd.content.v9+json',
        'text/html',
        '*/*',
      );
    let body: Body | undefined;
    if (op.body) {
      const key = fc.oneof(
        { arbitrary: fc.constantFrom(...op.body.fields), weight: 8 },
        {
          arbitrary: fc.constantFrom<string[]>(['__proto__'], ['constructor', 'prototype'], ['unknownField']),
          weight: 1,
        },
      );
      body =
        g(fc.nat, 7) === 0
          ? g(() => anyBody)
          : mutatedBody(
              op.body.example,
              g(fc.array, fc.tuple(key, fc.option(hostileJson, { nil: null, freq: 6 })), {
                minLength: 1,
                maxLength: 2,
              }),
            );
      headers['content-type'] = g(fc.nat, 5) === 0 ? g(fc.constantFrom, ...ODD_TYPES) : op.body.contentType;
    } else if (op.method !== 'GET' && op.method !== 'DELETE') {
      // A body the document does not describe (the avatar upload): bytes or text under any type.
      body = g(fc.boolean) ? g(fc.uint8Array, { maxLength: 4096 }) : g(() => anyBody);
      headers['content-type'] = g(
        fc.constantFrom,
        'image/png',
        'image/jpeg',
        'image/webp',
        'image/svg+xml',
        ...ODD_TYPES,
      );
    }
    // Now and then a method the path does not serve: 405 with Allow, in the envelope.
    const method = g(fc.nat, 24) === 0 ? g(fc.constantFrom, 'PATCH', 'PUT', 'DELETE', 'POST', 'OPTIONS') : op.method;
    return {
      kind: 'rest',
      method,
      path: `${op.prefix}${path}${query ? `?${query}` : ''}`,
      headers,
      body: method === 'GET' ? undefined : body,
    };
  });
}

const schema = buildSchema(typeDefs);
const rootFields = (['query', 'mutation'] as const).flatMap((kind) =>
  Object.values((kind === 'query' ? schema.getQueryType() : schema.getMutationType())?.getFields() ?? {}).map(
    (field) => ({ kind, field }),
  ),
);

/** A variable value of the right shape with hostile leaves (or a sane one, so the hostile one reaches the service). */
function variableValue(type: GraphQLInputType, name: string, leaf: (name: string) => unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [variableValue(inner.ofType, name, leaf)];
  if (isInputObjectType(inner))
    return Object.fromEntries(
      Object.values(inner.getFields()).map((f) => [f.name, variableValue(f.type, f.name, leaf)]),
    );
  return leaf(name);
}

/** Documents no well-behaved client sends: deep nesting, alias floods, fragment cycles and fan-outs, noise, cut-off text. */
const hostileDocument = fc.oneof(
  fc.integer({ min: 5, max: 400 }).map((n) => `{ users ${'{ posts { author '.repeat(n)}{ id }${' } }'.repeat(n)} }`),
  fc
    .integer({ min: 10, max: 6000 })
    .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: users { id }`).join(' ')} }`),
  fc
    .integer({ min: 2, max: 40 })
    .map(
      (n) =>
        `{ users { ...F0 } } ${Array.from({ length: n }, (_, i) => `fragment F${i} on User { a: posts { author { ...F${i + 1} } } b: posts { author { ...F${i + 1} } } }`).join(' ')} fragment F${n} on User { id }`,
    ),
  fc.constantFrom(
    '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
    '{ ...Missing }',
    '{ __schema { types { name } } }',
    'subscription { x }',
    '{ users { id @skip(if: $x) } }',
    '{ users(limit: 100) { posts(limit: 100) { comments(limit: 100) { author { name } } } } }',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ maxLength: 200 }).map((s) => `{ users(limit: ${s}) { id } }`),
);

/** A GraphQL request: a root field with hostile variables or literals, or a hostile document, over GET or POST. */
function graphqlProbe(world: World): fc.Arbitrary<Probe> {
  return fc.gen().map((g) => {
    const headers: Record<string, string> = {
      ...auth(world.tokens[g(fc.nat, 2)]),
      accept: g(fc.constantFrom, 'application/json', 'application/graphql-response+json', '*/*', 'text/html'),
    };
    let query = g(() => hostileDocument);
    let variables: unknown = g(fc.option, fc.jsonValue({ maxDepth: 3 }), { nil: undefined });
    if (g(fc.boolean)) {
      const { kind, field } = rootFields[g(fc.nat, rootFields.length - 1)]!;
      const leaf = (name: string) =>
        g(fc.nat, 2) === 0
          ? JSON.parse(g(() => hostileJson))
          : name === 'email'
            ? `h${g(fc.nat)}@example.com`
            : /id$/i.test(name)
              ? world.selfId
              : 5;
      const literals = Object.fromEntries(
        field.args
          .filter((a) => !isInputObjectType(getNamedType(a.type)) && g(fc.nat, 3) === 0)
          .map((a) => [a.name, g(() => hostileJson)]),
      );
      const passed = field.args.filter((a) => literals[a.name] === undefined);
      const declared = passed.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const args = field.args.map((a) => `${a.name}: ${literals[a.name] ?? `$${a.name}`}`).join(', ');
      query = `${kind}${declared ? ` (${declared})` : ''} { ${field.name}${args ? `(${args})` : ''}${isScalarType(getNamedType(field.type)) ? '' : ' { __typename }'} }`;
      variables = Object.fromEntries(passed.map((a) => [a.name, variableValue(a.type, a.name, leaf)]));
    }
    const transport = g(fc.nat, 9);
    // GET text is capped so the URL stays under Node's 16 KiB header limit (beyond it a bare 431 is documented).
    if (transport < 3)
      return {
        kind: 'graphql',
        method: 'GET',
        path: `/graphql?${new URLSearchParams({ query: query.slice(0, 4000), ...(variables === undefined ? {} : { variables: JSON.stringify(variables).slice(0, 2000) }) })}`,
        headers,
      };
    if (transport < 9)
      return {
        kind: 'graphql',
        method: 'POST',
        path: '/graphql',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      };
    return {
      kind: 'graphql',
      method: 'POST',
      path: '/graphql',
      headers: {
        ...headers,
        'content-type': g(fc.constantFrom, 'application/json', 'application/graphql', 'text/plain'),
      },
      body: g(() => anyBody),
    };
  });
}

/** 2 MiB (twice the limit) to a JSON route, to GraphQL and as an image, each with Content-Length and chunked: each must be a 413. */
function oversizedProbes(world: World): Probe[] {
  const filler = 'a'.repeat(2 * 1024 * 1024);
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2 * 1024 * 1024)]);
  const targets = [
    {
      method: 'POST',
      path: '/api/users',
      type: 'application/json',
      data: Buffer.from(JSON.stringify({ name: filler, email: 'big@example.com' })),
      token: undefined,
    },
    {
      method: 'POST',
      path: '/graphql',
      type: 'application/json',
      data: Buffer.from(JSON.stringify({ query: '{ __typename }', variables: { filler } })),
      token: world.tokens[1],
    },
    { method: 'PUT', path: `/api/users/${world.selfId}/avatar`, type: 'image/png', data: png, token: world.tokens[1] },
  ];
  return targets.flatMap((t) =>
    [t.data, { chunked: t.data }].map((body) => ({
      kind: 'oversized' as const,
      method: t.method,
      path: t.path,
      headers: { 'content-type': t.type, ...auth(t.token) },
      body,
    })),
  );
}

/** An endless, reproducible stream: fixed-size samples of the mix, seeded SEED, SEED + 1, ... */
function* probeStream(world: World, operations: Operation[]): Generator<Probe> {
  const oversized = oversizedProbes(world);
  yield* oversized; // Every oversized kind at least once, before the load.
  const mix = fc.oneof(
    { arbitrary: restProbe(operations, world), weight: 40 },
    { arbitrary: graphqlProbe(world), weight: 20 },
    { arbitrary: fc.constantFrom(...oversized), weight: 1 },
  );
  for (let batch = 0; ; batch += 1) yield* fc.sample(mix, { seed: SEED + batch, numRuns: 100 });
}

async function send(url: string, probe: Probe): Promise<Outcome> {
  const raw = probe.body;
  const body =
    raw && typeof raw === 'object' && 'chunked' in raw
      ? ReadableStream.from(
          (function* () {
            for (let i = 0; i < raw.chunked.length; i += 65536) yield raw.chunked.subarray(i, i + 65536);
          })(),
        )
      : raw;
  try {
    const response = await fetch(`${url}${probe.path}`, {
      method: probe.method,
      headers: probe.headers,
      body,
      duplex: 'half',
      signal: AbortSignal.timeout(30_000),
    } as RequestInit);
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      failure: `${(error as Error).name}: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`,
    };
  }
}

const parse = (text: string): Json | undefined => {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
};
const isEnvelope = (b: Json | undefined) =>
  !!b &&
  Object.keys(b).join() === 'error' &&
  typeof b.error?.code === 'string' &&
  typeof b.error.message === 'string' &&
  (b.error.details === undefined || Array.isArray(b.error.details)) &&
  Object.keys(b.error).every((k) => ['code', 'message', 'details'].includes(k));
const isGraphQLErrors = (b: Json | undefined) =>
  Array.isArray(b?.errors) &&
  b.errors.length > 0 &&
  b.errors.every((e: Json) => typeof e?.message === 'string' && typeof e.extensions?.code === 'string');

/** What is wrong with an answer, if anything (a key of the violation table). */
function judge(probe: Probe, outcome: Outcome): string | undefined {
  if (outcome.failure) {
    if (/TimeoutError/.test(outcome.failure)) return 'no answer within 30 s';
    if (/ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed|terminated|socket/i.test(outcome.failure))
      return 'connection reset';
    return /^TypeError: fetch failed/.test(outcome.failure)
      ? 'other network error'
      : 'not sent (refused by fetch itself)';
  }
  const status = outcome.status!;
  const body = parse(outcome.text!);
  if (status >= 500) return '5xx';
  if (probe.kind === 'oversized')
    return status === 413 &&
      (isEnvelope(body) || isGraphQLErrors(body)) &&
      JSON.stringify(body).includes('PAYLOAD_TOO_LARGE')
      ? undefined
      : 'oversized body not answered 413 PAYLOAD_TOO_LARGE';
  if (probe.kind === 'graphql') {
    if ((status >= 400 || body?.errors !== undefined) && !isGraphQLErrors(body))
      return 'GraphQL answer outside the error shape';
    if ((body?.errors as Json[] | undefined)?.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR'))
      return 'GraphQL INTERNAL_SERVER_ERROR';
    return undefined;
  }
  return status >= 400 && !isEnvelope(body) ? '4xx outside the error envelope' : undefined;
}

class Tally {
  sent = 0;
  byKind: Record<string, number> = {};
  byStatus: Record<string, number> = {};
  violations: Record<string, { count: number; samples: string[] }> = {};
  record(probe: Probe, outcome: Outcome): void {
    this.sent += 1;
    this.byKind[probe.kind] = (this.byKind[probe.kind] ?? 0) + 1;
    const key = outcome.status === undefined ? 'no answer' : String(outcome.status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
    const problem = judge(probe, outcome);
    if (!problem) return;
    const entry = (this.violations[problem] ??= { count: 0, samples: [] });
    entry.count += 1;
    const raw = probe.body;
    const body =
      raw === undefined
        ? ''
        : typeof raw === 'string'
          ? raw.slice(0, 200)
          : 'chunked' in raw
            ? `<${raw.chunked.length} bytes, chunked>`
            : `<${raw.length} bytes>`;
    if (entry.samples.length < 5)
      entry.samples.push(
        `${probe.method} ${probe.path.slice(0, 200)} ${JSON.stringify(probe.headers).slice(0, 200)} ${JSON.stringify(body)} → ${outcome.status ?? outcome.failure} ${(outcome.text ?? '').slice(0, 300)}`,
      );
  }
  get failed(): boolean {
    return Object.keys(this.violations).some((k) => k !== 'not sent (refused by fetch itself)');
  }
}

/** One database: fresh store, real server, sign-ins, CONCURRENCY workers for --seconds, final health check. */
async function runOn(kind: string) {
  const database = await freshDatabase(kind, 'hostile-run');
  const service = await startService(database.url).catch(async (error) => {
    await database.drop();
    throw error;
  });
  try {
    const world = await prepareWorld(service.url);
    const documents = await Promise.all(
      ['/api/v1/openapi.json', '/api/v2/openapi.json'].map(
        async (p) => (await fetch(`${service.url}${p}`)).json() as Promise<Json>,
      ),
    );
    const operations = [
      ...operationsOf(documents[0]!, ['/api', '/api/v1']),
      ...operationsOf(documents[1]!, ['/api/v2']),
    ];
    const probes = probeStream(world, operations);
    const tally = new Tally();
    const loadStart = loadavg();
    const started = Date.now();
    const worker = async () => {
      for (
        let probe = probes.next().value;
        Date.now() - started < Number(opts.seconds) * 1000;
        probe = probes.next().value
      )
        tally.record(probe, await send(service.url, probe));
    };
    await Promise.all(Array.from({ length: Number(opts.concurrency) }, worker));
    for (const probe of oversizedProbes(world)) tally.record(probe, await send(service.url, probe)); // And again, after the load.
    const healthz = await fetch(`${service.url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    await sleep(500); // Let the asynchronous logger flush what the last requests logged.
    return {
      kind,
      tally,
      seconds: (Date.now() - started) / 1000,
      loadStart,
      loadEnd: loadavg(),
      operations: operations.length,
      up: healthz === 200 && !service.exited,
      healthz,
      errorLines: [...service.errorLines],
      otherStderr: [...service.otherStderr],
    };
  } finally {
    await service.stop();
    await database.drop();
  }
}

type Result = Awaited<ReturnType<typeof runOn>>;

function report(results: Result[], command: string): string {
  const classes = (t: Tally, c: string) =>
    Object.entries(t.byStatus)
      .filter(([s]) => s.startsWith(c))
      .reduce((n, [, v]) => n + v, 0);
  const lines = [
    `Run ${new Date().toISOString()}: \`${command}\` (seed ${SEED}, ${opts.concurrency} concurrent requests)`,
    '',
    '| database | seconds | requests | 2xx | 3xx | 4xx | 5xx | no answer | load avg start → end | /healthz at end | server error log lines |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results)
    lines.push(
      `| ${r.kind} | ${r.seconds.toFixed(1)} | ${r.tally.sent} | ${['2', '3', '4', '5'].map((c) => classes(r.tally, c)).join(' | ')} | ${r.tally.byStatus['no answer'] ?? 0} | ${r.loadStart} → ${r.loadEnd} | ${r.healthz} | ${r.errorLines.length} |`,
    );
  for (const r of results) {
    lines.push(
      '',
      `**${r.kind}**: ${Object.entries(r.tally.byKind)
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )} requests (REST over ${r.operations} operation × prefix pairs from the OpenAPI documents); statuses ${Object.entries(
        r.tally.byStatus,
      )
        .sort()
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')}.`,
    );
    const violations = Object.entries(r.tally.violations);
    lines.push(violations.length === 0 ? 'Violations: none.' : 'Violations:');
    for (const [what, v] of violations)
      lines.push(`- ${what}: ${v.count}`, ...v.samples.map((s) => `  - \`${s.replace(/`/g, "'")}\``));
    for (const line of [...r.errorLines, ...r.otherStderr].slice(0, 5))
      lines.push(`- server log: \`${line.slice(0, 400).replace(/`/g, "'")}\``);
  }
  return lines.join('\n');
}

/** Replaces the generated block of the results file, keeping everything written around it. */
function writeDoc(path: string, block: string): void {
  const [begin, end] = ['<!-- hostile-run:begin (generated by scripts/hostile-run.ts) -->', '<!-- hostile-run:end -->'];
  const text = existsSync(path) ? readFileSync(path, 'utf8') : `# Hostile run\n\n${begin}\n${end}\n`;
  const [from, to] = [text.indexOf(begin), text.indexOf(end)];
  if (from < 0 || to < from) throw new Error(`${path} lacks the markers ${begin} ... ${end}`);
  writeFileSync(path, `${text.slice(0, from)}${begin}\n${block}\n${text.slice(to)}`);
}

const command = `node_modules/.bin/node scripts/hostile-run.ts ${process.argv.slice(2).join(' ')}`.trim();
console.log(
  `hostile run: seed ${SEED} (replay with --seed ${SEED}), ${opts.seconds} s per database, ${opts.concurrency} concurrent`,
);
const results: Result[] = [];
for (const kind of opts.db.split(',')) {
  console.log(`\n${kind}: starting the service...`);
  results.push(await runOn(kind));
  console.log(report(results.slice(-1), command).split('\n').slice(2).join('\n'));
}
const block = report(results, command);
writeDoc(resolve(ROOT, opts.doc), block);
const failed = results.filter((r) => r.tally.failed || !r.up);
console.log(
  `\n${failed.length === 0 ? 'PASS' : `FAIL on ${failed.map((r) => r.kind).join(', ')}`}; figures written to ${opts.doc}`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
