import { LATEST_API_VERSION, VERSIONS_KEYWORD, type ApiVersion } from '../http/versioning.ts';
import { withDefaultErrors } from './error-responses.ts';
import { exampleOf } from './schema-example.ts';
import type { OperationFacts } from './operation-facts.ts';

/** An OpenAPI document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};
type Operation = { operationId?: string; tags?: string[]; responses?: Record<string, Record<string, unknown>> };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Bearer tokens for a user (`POST .../auth/token`)',
  users: 'Users: sign-up, reads, updates, email verification and promotion',
  posts: 'Posts, per user and as one cursor-paged feed',
  comments: 'Comments on posts',
  likes: 'Likes on comments',
  avatars: 'User avatars (uploaded images or generated SVG)',
  products: 'The product catalogue: public reads, admin writes',
  orders: 'Orders and their state machine (pay, cancel, refund), receipts',
  customers: 'Users seen as customers: order counts and totals',
  reports: 'Report jobs generated in the background',
};

const DEFAULT_FACTS: OperationFacts = { access: 'user', hasParams: false, hasBody: false, hasQuery: false, hasHeaders: false, method: 'get', docs: {} };

function describe(version: ApiVersion, v1Sunset: string): string {
  const lines = [
    `REST API of content-service, version ${version}. Generated from the route schemas that validate requests.`,
    '',
    `Paths below are relative to the server URL \`/api/v${version}\`. Versions: pin one by path (\`/api/v1/...\`, \`/api/v2/...\`), or on plain \`/api/...\` by the`,
    '`API-Version: N` header, then `Accept: application/vnd.content.vN+json` (echoed in `Content-Type`), then',
    '`?version=N`; the default is 1. Every response says `API-Version`. v2 differs from v1 only in products:',
    '`createdAt` (field, `fields` and `sort`, `-createdAt` too) instead of `created_at`.',
    '',
    'Errors always use one envelope: `{"error": {"code", "message", "details"?}}`.',
  ];
  if (version === 1) {
    lines.push('', `**Deprecated**: v1 is withdrawn on ${v1Sunset}; its responses carry \`Deprecation\`, \`Sunset\` and a \`Link\` to the same resource under \`/api/v2\`.`);
  }
  return lines.join('\n');
}

function resolverOf(document: OpenApiDocument) {
  return (node: unknown): Record<string, unknown> => {
    let current = node as Record<string, unknown> | undefined;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 10; hops++) {
      const name = current.$ref.replace('#/components/schemas/', '');
      current = document.components.schemas?.[name] as Record<string, unknown> | undefined;
    }
    return current ?? {};
  };
}

/**
 * Real answers of the service, recorded per operation (`GET /users/{userId}`) of one version: the
 * request body sent and the response body per status. The caller passes them in (src/openapi-examples.ts).
 */
export type RecordedExamples = Record<string, { request?: unknown; responses: Record<string, unknown> }>;

/**
 * Every JSON request and response body gets an example: the recorded answer of the service where
 * there is one, else one built from its schema.
 */
function addExamples(document: OpenApiDocument, recorded: RecordedExamples): void {
  const resolve = resolverOf(document);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const real = recorded[`${method.toUpperCase()} ${path}`];
      const op = operation as Operation & { requestBody?: { content?: Record<string, Record<string, unknown>> } };
      type Content = Record<string, Record<string, unknown>> | undefined;
      const bodies: [Content, boolean, unknown][] = [
        [op.requestBody?.content, true, real?.request],
        ...Object.entries(op.responses ?? {}).map(([status, response]): [Content, boolean, unknown] => [response.content as Content, false, real?.responses[status]]),
      ];
      // @fastify/swagger marks every declared body required; one that accepts null (an action's `EmptyBody`) may be left out.
      const bodyType = Object.values(op.requestBody?.content ?? {})[0]?.schema as { type?: unknown } | undefined;
      if (op.requestBody && Array.isArray(bodyType?.type) && bodyType.type.includes('null')) Object.assign(op.requestBody, { required: false });
      for (const [content, minimal, answer] of bodies) {
        for (const [type, media] of Object.entries(content ?? {})) {
          // Images (avatars) have no meaningful example text.
          if (!type.endsWith('json')) continue;
          if (answer !== undefined) media.example = answer;
          else if (media.example === undefined && media.examples === undefined && media.schema !== undefined) {
            media.example = exampleOf(media.schema, resolve, minimal);
          }
        }
      }
    }
  }
}

/**
 * Every schema with a `title` (core/http/schemas.ts `Named`) becomes a component,
 * `#/components/schemas/<title>`, referenced where it was, so generated clients get named types.
 * Two different shapes under one title get distinct names (`Title2`), never a wrong reference.
 */
function hoistNamedSchemas(document: OpenApiDocument): void {
  const schemas = { ...document.components.schemas } as Record<string, unknown>;
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (node === null || typeof node !== 'object') return node;
    const object = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, hoist(value)]));
    const title = object.title;
    if (typeof title !== 'string' || (object.type === undefined && object.properties === undefined)) return object;
    const schema = { ...object };
    delete schema.title;
    const text = JSON.stringify(schema);
    let name = title;
    for (let n = 2; schemas[name] !== undefined && JSON.stringify(schemas[name]) !== text; n++) name = `${title}${n}`;
    schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  };
  document.paths = hoist(document.paths) as OpenApiDocument['paths'];
  document.components = { ...document.components, schemas };
}

/** Replaces each versioned schema (see `Versioned`) by this version's own shape. */
function pickVersion(node: unknown, version: ApiVersion): unknown {
  if (Array.isArray(node)) return node.map((item) => pickVersion(item, version));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const shapes = object[VERSIONS_KEYWORD] as Record<string, unknown> | undefined;
  if (shapes && typeof shapes === 'object') return pickVersion(shapes[version], version);
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, pickVersion(value, version)]));
}

const SUCCESS: Record<string, string> = {
  200: 'OK',
  201: 'Created; `Location` names the new resource',
  202: 'Accepted; `Location` names the job to poll',
  204: 'Done; no body',
  304: 'Not modified (`If-None-Match` matched); no body',
};

function successHeaders(method: string, status: string, stream: boolean): Record<string, unknown> {
  if (status === '201' || status === '202') {
    return { Location: { description: 'Where the created resource lives', required: true, schema: { type: 'string' } } };
  }
  if (method === 'get' && stream) return status === '200' ? { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } } : {};
  if (method === 'get' && (status === '200' || status === '304')) {
    return {
      ETag: { $ref: '#/components/headers/ETag' },
      'Cache-Control': { $ref: '#/components/headers/CacheControl' },
    };
  }
  return {};
}

function versionHeaders(version: ApiVersion): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'API-Version': { $ref: '#/components/headers/ApiVersion' } };
  if (version === 1) {
    headers.Deprecation = { $ref: '#/components/headers/Deprecation' };
    headers.Sunset = { $ref: '#/components/headers/Sunset' };
    headers.Link = { $ref: '#/components/headers/SuccessorLink' };
  }
  return headers;
}

const BINARY = { type: 'string', format: 'binary' };

/** The request headers every operation, GETs and conditional writes take, as parameters. */
function requestParameters(operation: Operation, facts: OperationFacts, method: string): unknown[] {
  const given = (operation as { parameters?: unknown[] }).parameters ?? [];
  const extra: unknown[] = [{ $ref: '#/components/parameters/ApiVersion' }];
  if (method === 'get') extra.push({ $ref: '#/components/parameters/IfNoneMatch' });
  if (facts.docs.ifMatch) extra.push({ $ref: '#/components/parameters/IfMatch' });
  return [...given, ...extra];
}

/** Raw bodies (avatars) in their own media types instead of the JSON default. */
function applyMedia(operation: Operation, responses: Record<string, unknown>, facts: OperationFacts): Record<string, unknown> {
  const result: Record<string, unknown> = { ...operation };
  if (facts.docs.requestMedia) {
    result.requestBody = {
      required: true,
      description: `The image, as one of ${facts.docs.requestMedia.join(', ')}`,
      content: Object.fromEntries(facts.docs.requestMedia.map((media) => [media, { schema: BINARY }])),
    };
  }
  for (const [status, media] of Object.entries(facts.docs.responseMedia ?? {})) {
    const response = responses[status] as Record<string, unknown> | undefined;
    if (!response) continue;
    const schema = Object.values((response.content ?? {}) as Record<string, { schema?: unknown }>)[0]?.schema ?? BINARY;
    responses[status] = { ...response, content: Object.fromEntries(media.map((type) => [type, { schema }])) };
  }
  return result;
}

/** JSON bodies may also be sent and are answered as `application/vnd.content.vN+json` (versioning by `Accept`). */
function addVendorMedia(document: OpenApiDocument, version: ApiVersion): void {
  const vendor = `application/vnd.content.v${version}+json`;
  const withVendor = (content: Record<string, Record<string, unknown>> | undefined) => {
    const json = content?.['application/json'];
    if (content && json && !content[vendor]) content[vendor] = { schema: json.schema };
  };
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = operation as Operation & { requestBody?: { content?: Record<string, Record<string, unknown>> } };
      withVendor(op.requestBody?.content);
      for (const response of Object.values(op.responses ?? {})) withVendor(response.content as Record<string, Record<string, unknown>> | undefined);
    }
  }
}

/**
 * One version's document from the generated whole: only that version's paths, the default error
 * responses and version headers on every operation, and per-version schemas resolved.
 */
export function documentForVersion(
  full: OpenApiDocument,
  version: ApiVersion,
  facts: ReadonlyMap<string, OperationFacts>,
  v1Sunset: string,
  recorded: RecordedExamples = {},
): OpenApiDocument {
  const prefix = `/api/v${version}/`;
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(full.paths)) {
    if (!path.startsWith(prefix)) continue;
    const copy: Record<string, Operation> = {};
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) {
        copy[method] = operation;
        continue;
      }
      for (const tag of operation.tags ?? []) tags.add(tag);
      const operationFacts = facts.get(operation.operationId ?? '') ?? DEFAULT_FACTS;
      const responses = withDefaultErrors(operation.responses, operationFacts);
      if (method === 'get' && !responses['304'] && !operationFacts.docs.stream) responses['304'] = { description: SUCCESS[304] };
      const documented = applyMedia(operation, responses, operationFacts) as Operation;
      for (const [status, response] of Object.entries(responses)) {
        const given = response as Record<string, unknown>;
        const headers = { ...versionHeaders(version), ...successHeaders(method, status, operationFacts.docs.stream === true), ...(given.headers as object | undefined) };
        const description = given.description === 'Default Response' ? SUCCESS[status] ?? 'Success' : given.description;
        responses[status] = { ...given, description, headers };
      }
      copy[method] = { ...documented, parameters: requestParameters(operation, operationFacts, method), responses: responses as Operation['responses'] } as Operation;
    }
    paths[path.slice(prefix.length - 1)] = copy;
  }
  const document = pickVersion({ ...full, paths }, version) as OpenApiDocument;
  hoistNamedSchemas(document);
  addExamples(document, recorded);
  addVendorMedia(document, version);
  if (version !== 1) {
    // v2 sends no deprecation headers, so its document does not define them.
    const headers = { ...document.components.headers };
    for (const name of ['Deprecation', 'Sunset', 'SuccessorLink']) delete headers[name];
    document.components = { ...document.components, headers };
  }
  return {
    ...document,
    // Paths are relative to the version's base path, so "try it" in the docs page calls it as is.
    servers: [{ url: `/api/v${version}`, description: `REST API v${version} on this server` }],
    info: {
      ...document.info,
      version: `${version}.0.0`,
      description: describe(version, v1Sunset),
    },
    tags: [...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations on ${name}` })),
    ...(version < LATEST_API_VERSION ? { 'x-sunset': v1Sunset } : {}),
  };
}
