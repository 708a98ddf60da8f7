import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { generateOpenApiDocuments } from '../../src/contract-documents.ts';
import { API_PREFIXES } from '../../src/core/http/versioning.ts';

/**
 * Checks a REST response against the OpenAPI document of the version that answered (its
 * `API-Version` header): the operation (path template and method) exists, the status is listed
 * for it, the media type is listed for that status, the body is valid against the listed schema
 * (ajv, JSON Schema 2020-12, the document's own dialect in OpenAPI 3.1) and every header the
 * document marks `required` is present and valid. A request the document has no operation for
 * (unknown path or method) must be answered by an error in the envelope (405 with `Allow`). Paths are
 * matched by the service's own router (find-my-way, Fastify's defaults) over the document's paths
 * under the prefixes the service registers them at (`/api`, `/api/v1`, `/api/v2`): a request names
 * an operation exactly when the service would route it there, so `/api/vNaN/products`, a
 * percent-escape the router cannot decode or a parameter over its length limit is an unknown route.
 *
 * Every HTTP client of the tests runs `checkContract` on each response (most through
 * `checked-answer.ts`), so every HTTP test proves the published contract; see test/README.md for
 * the list of clients and the choice of validator.
 */

type Json = Record<string, unknown>;
type OpenApiDocument = {
  paths: Record<string, Record<string, Json>>;
  webhooks?: Record<string, Json>;
  components: Json;
};
type ResponseObject = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, Json> };

export interface ObservedExchange {
  method: string;
  /** The request path, with its query string. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
const PREFIXES = API_PREFIXES.map(({ prefix }) => prefix);
const REST_PATH = /^\/api(?=\/|$)/;
/**
 * Not REST resources: the documents themselves (validated by the Redocly lint and the contract tests), and
 * the bare prefixes, which answer the front door's index (core/http/front-door.ts, tested there).
 */
const NOT_REST = new Set([...PREFIXES.map((prefix) => `${prefix}/openapi.json`), ...PREFIXES]);
const DOCUMENT_ID = 'urn:content-service:openapi';

function pointer(...segments: string[]): string {
  return segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

type Parameter = { in?: string; name?: string; schema?: { type?: unknown } };

/** The names of a path item's path parameters its operations declare integers. */
function integerPathParameters(item: Record<string, unknown>): Set<string> {
  const names = new Set<string>();
  const lists = [item.parameters, ...METHODS.map((method) => (item[method] as { parameters?: unknown })?.parameters)];
  for (const list of lists) {
    for (const parameter of (list as Parameter[] | undefined) ?? []) {
      if (parameter.in === 'path' && parameter.name && parameter.schema?.type === 'integer') names.add(parameter.name);
    }
  }
  return names;
}

export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  /** Every documented path and method under every prefix; its store is the path's template. */
  private readonly router = FindMyWay();
  private readonly validators = new Map<string, ValidateFunction>();

  readonly document: OpenApiDocument;

  constructor(document: OpenApiDocument) {
    this.document = document;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    for (const [template, item] of Object.entries(document.paths)) {
      // An integer path parameter (an id) matches digits only, as the service's own route index has it:
      // `/comments/a` names no comment, so it is the path no operation has (404), not a 405.
      const integers = integerPathParameters(item as Record<string, unknown>);
      const route = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
        integers.has(name) ? `:${name}(^\\d+$)` : `:${name}`,
      );
      for (const method of METHODS.filter((name) => name in item)) {
        for (const prefix of PREFIXES)
          this.router.on(method.toUpperCase() as HTTPMethod, `${prefix}${route}`, () => {}, { template });
      }
    }
  }

  /** The documented path template the service routes `path` to for `method`, or undefined. */
  private templateOf(method: string, path: string): string | undefined {
    return (this.router.find(method.toUpperCase() as HTTPMethod, path)?.store as { template: string } | undefined)
      ?.template;
  }

  private validatorAt(path: string): ValidateFunction {
    let validate = this.validators.get(path);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${path}` });
      this.validators.set(path, validate);
    }
    return validate;
  }

  private checkSchema(violations: string[], where: string, schemaPath: string, value: unknown): void {
    const validate = this.validatorAt(schemaPath);
    if (!validate(value)) {
      for (const error of validate.errors ?? [])
        violations.push(
          `${where}: ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
        );
    }
  }

  /** The violations of one response (empty when it conforms). */
  validate(exchange: ObservedExchange): string[] {
    const violations: string[] = [];
    const path = exchange.path.split('?')[0]!;
    const method = exchange.method.toLowerCase();
    const operationMethod = method === 'head' ? 'get' : method;
    const template = this.templateOf(operationMethod, path);
    const operation =
      template === undefined
        ? undefined
        : (this.document.paths[template]?.[operationMethod] as
            { responses?: Record<string, ResponseObject> } | undefined);
    const label = `${exchange.method} ${exchange.path} → ${exchange.status}`;

    if (template === undefined || !operation) {
      // No such operation: the router's 404, or 405 naming the methods the path has.
      const allowed = METHODS.filter((other) => this.templateOf(other, path) !== undefined);
      if (exchange.status < 400) violations.push(`${label}: a success for an operation the document does not have`);
      if (exchange.status === 405 && !exchange.headers.get('allow')) violations.push(`${label}: 405 without Allow`);
      if (allowed.length > 0 && exchange.status === 404)
        violations.push(`${label}: 404 for a documented path (expected 405)`);
      if (method !== 'head') this.checkErrorEnvelope(violations, label, exchange);
      return violations;
    }

    const responses = operation.responses ?? {};
    const statusKey = [String(exchange.status), `${String(exchange.status)[0]}XX`, 'default'].find(
      (key) => key in responses,
    );
    if (!statusKey) {
      violations.push(
        `${label}: status ${exchange.status} is not listed for ${operationMethod.toUpperCase()} ${template} (${Object.keys(responses).join(', ')})`,
      );
      return violations;
    }
    const response = responses[statusKey]!;
    const responsePath = pointer('paths', template, operationMethod, 'responses', statusKey);

    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const resolved = this.resolve(header) as { required?: boolean; schema?: unknown };
      const value = exchange.headers.get(name);
      if (value === null) {
        if (resolved.required) violations.push(`${label}: required header ${name} is missing`);
        continue;
      }
      if (resolved.schema !== undefined) {
        const type = (this.resolve(resolved.schema) as { type?: unknown }).type;
        const typed = type === 'integer' || type === 'number' ? Number(value) : value;
        const headerPath =
          typeof header.$ref === 'string' ? header.$ref.slice(2) : `${responsePath}/${pointer('headers', name)}`;
        this.checkSchema(violations, `${label}: header ${name}`, `${headerPath}/schema`, typed);
      }
    }

    const hasBody = exchange.text.length > 0;
    if (method === 'head' || exchange.status === 204 || exchange.status === 304) {
      if (hasBody) violations.push(`${label}: a body where none may be`);
      return violations;
    }
    const content = response.content;
    if (!content) {
      if (hasBody)
        violations.push(`${label}: a body (${exchange.headers.get('content-type')}) where the document lists none`);
      return violations;
    }
    const mediaType = (exchange.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const listed = Object.keys(content).find(
      (key) =>
        key.toLowerCase() === mediaType ||
        (key.endsWith('/*') && mediaType.startsWith(key.slice(0, -1))) ||
        key === '*/*',
    );
    if (!listed) {
      violations.push(`${label}: media type "${mediaType}" is not listed (${Object.keys(content).join(', ')})`);
      return violations;
    }
    if (content[listed]?.schema !== undefined && /[/+]json$/.test(mediaType)) {
      this.checkSchema(
        violations,
        `${label}: body`,
        `${responsePath}/${pointer('content', listed, 'schema')}`,
        exchange.body,
      );
    }
    return violations;
  }

  /**
   * The violations of a request the service sends to a webhook endpoint: `body` against the JSON
   * request body schema of the document's webhook `name` (`webhooks.<name>.post`), with the same ajv.
   */
  validateWebhook(name: string, body: unknown): string[] {
    const webhook = (this.document.webhooks?.[name] as { post?: Json } | undefined)?.post;
    if (!webhook) return [`webhook ${name}: not in the document`];
    const violations: string[] = [];
    this.checkSchema(
      violations,
      `webhook ${name}: body`,
      pointer('webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema'),
      body,
    );
    return violations;
  }

  private checkErrorEnvelope(violations: string[], label: string, exchange: ObservedExchange): void {
    if (!/[/+]json$/.test((exchange.headers.get('content-type') ?? '').split(';')[0]!.trim())) {
      violations.push(`${label}: an error that is not JSON (${exchange.headers.get('content-type')})`);
      return;
    }
    this.checkSchema(
      violations,
      `${label}: error body`,
      pointer('components', 'schemas', 'ErrorEnvelope'),
      exchange.body,
    );
  }

  private resolve(node: unknown): Json {
    let current = node as Json | undefined;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 10; hops++) {
      const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(current.$ref) ?? [];
      current = (this.document.components[section ?? ''] as Json | undefined)?.[name ?? ''] as Json | undefined;
    }
    return current ?? {};
  }
}

/** The response's version chooses the document; non-REST paths are not checked (null). */
export class ContractChecker {
  private readonly validators: ReadonlyMap<number, OpenApiResponseValidator>;

  constructor(validators: ReadonlyMap<number, OpenApiResponseValidator>) {
    this.validators = validators;
  }

  violations(exchange: ObservedExchange): string[] | null {
    const path = exchange.path.split('?')[0]!;
    if (!REST_PATH.test(path) || NOT_REST.has(path)) return null;
    // A CORS preflight belongs to the CORS protocol, not to an operation.
    if (exchange.method.toUpperCase() === 'OPTIONS') return null;
    const version = exchange.headers.get('api-version');
    const validator = version ? this.validators.get(Number(version)) : undefined;
    if (!validator)
      return [
        `${exchange.method} ${exchange.path} → ${exchange.status}: REST response with API-Version ${JSON.stringify(version)}, which names no document`,
      ];
    return validator.validate(exchange);
  }
}

let shared: Promise<ContractChecker> | undefined;

/** The checker over this code's v1 and v2 documents, generated once per test process. */
export function contractChecker(): Promise<ContractChecker> {
  shared ??= generateOpenApiDocuments().then(
    (documents) =>
      new ContractChecker(
        new Map(
          [...documents].map(([version, document]) => [
            version,
            new OpenApiResponseValidator(document as OpenApiDocument),
          ]),
        ),
      ),
  );
  return shared;
}

export class ContractViolation extends Error {
  constructor(violations: string[]) {
    super(`The response does not match the OpenAPI document:\n  ${violations.join('\n  ')}`);
    this.name = 'ContractViolation';
  }
}

/**
 * Checks one response a test received: throws `ContractViolation` when it breaks the document of
 * its version. With `CONTRACT_COLLECT=<file>` the violations are appended to that file instead, to
 * survey a change without stopping at the first.
 */
export async function checkContract(exchange: ObservedExchange): Promise<void> {
  const violations = (await contractChecker()).violations(exchange);
  if (!violations || violations.length === 0) return;
  if (process.env.CONTRACT_COLLECT) appendFileSync(process.env.CONTRACT_COLLECT, `${violations.join('\n')}\n`);
  else throw new ContractViolation(violations);
}
