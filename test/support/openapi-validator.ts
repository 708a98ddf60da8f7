import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { generateOpenApiDocuments } from '../../src/contract-documents.ts';

/**
 * Checks a REST response against the OpenAPI document of the version that answered (its
 * `API-Version` header): the operation (path template and method) exists, the status is listed
 * for it, the media type is listed for that status, the body is valid against the listed schema
 * (ajv, JSON Schema 2020-12, the document's own dialect in OpenAPI 3.1) and every header the
 * document marks `required` is present and valid. A request the document has no operation for
 * (unknown path or method) must be answered by an error in the envelope (405 with `Allow`).
 *
 * Used by `request()` of `test-server.ts` on every response under `/api`, so every HTTP test
 * proves the published contract; see test/README.md for the choice of validator.
 */

type Json = Record<string, unknown>;
type OpenApiDocument = { paths: Record<string, Record<string, Json>>; components: Json };
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
const API_PATH = /^\/api(?:\/v[^/?#]*)?(?=\/|$)/;
/** Not REST resources: the documents themselves (validated by the Redocly lint and the contract tests). */
const NOT_REST = /^\/api(?:\/v\d+)?\/openapi\.json$/;
const DOCUMENT_ID = 'urn:content-service:openapi';

function pointer(...segments: string[]): string {
  return segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
}

export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  readonly document: OpenApiDocument;

  constructor(document: OpenApiDocument) {
    this.document = document;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    this.routes = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // Static segments win over parameters, as in the server's router.
      .sort((a, b) => a.params - b.params);
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
      for (const error of validate.errors ?? []) violations.push(`${where}: ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
    }
  }

  /** The violations of one response (empty when it conforms). */
  validate(exchange: ObservedExchange): string[] {
    const violations: string[] = [];
    const path = exchange.path.split('?')[0]!.replace(API_PATH, '') || '/';
    const method = exchange.method.toLowerCase();
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    const item = route ? this.document.paths[route.template] : undefined;
    const operationMethod = method === 'head' ? 'get' : method;
    const operation = item?.[operationMethod] as { responses?: Record<string, ResponseObject> } | undefined;
    const label = `${exchange.method} ${exchange.path} → ${exchange.status}`;

    if (!route || !operation) {
      // No such operation: the router's 404, or 405 naming the methods the path has.
      const allowed = route ? Object.keys(item ?? {}).filter((key) => METHODS.includes(key)) : [];
      if (exchange.status < 400) violations.push(`${label}: a success for an operation the document does not have`);
      if (exchange.status === 405 && !exchange.headers.get('allow')) violations.push(`${label}: 405 without Allow`);
      if (route && allowed.length > 0 && exchange.status === 404) violations.push(`${label}: 404 for a documented path (expected 405)`);
      if (method !== 'head') this.checkErrorEnvelope(violations, label, exchange);
      return violations;
    }

    const responses = operation.responses ?? {};
    const statusKey = [String(exchange.status), `${String(exchange.status)[0]}XX`, 'default'].find((key) => key in responses);
    if (!statusKey) {
      violations.push(`${label}: status ${exchange.status} is not listed for ${operationMethod.toUpperCase()} ${route.template} (${Object.keys(responses).join(', ')})`);
      return violations;
    }
    const response = responses[statusKey]!;
    const responsePath = pointer('paths', route.template, operationMethod, 'responses', statusKey);

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
        const headerPath = typeof header.$ref === 'string' ? header.$ref.slice(2) : `${responsePath}/${pointer('headers', name)}`;
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
      if (hasBody) violations.push(`${label}: a body (${exchange.headers.get('content-type')}) where the document lists none`);
      return violations;
    }
    const mediaType = (exchange.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const listed = Object.keys(content).find(
      (key) => key.toLowerCase() === mediaType || (key.endsWith('/*') && mediaType.startsWith(key.slice(0, -1))) || key === '*/*',
    );
    if (!listed) {
      violations.push(`${label}: media type "${mediaType}" is not listed (${Object.keys(content).join(', ')})`);
      return violations;
    }
    if (content[listed]?.schema !== undefined && /[/+]json$/.test(mediaType)) {
      this.checkSchema(violations, `${label}: body`, `${responsePath}/${pointer('content', listed, 'schema')}`, exchange.body);
    }
    return violations;
  }

  private checkErrorEnvelope(violations: string[], label: string, exchange: ObservedExchange): void {
    if (!/[/+]json$/.test((exchange.headers.get('content-type') ?? '').split(';')[0]!.trim())) {
      violations.push(`${label}: an error that is not JSON (${exchange.headers.get('content-type')})`);
      return;
    }
    this.checkSchema(violations, `${label}: error body`, pointer('components', 'schemas', 'ErrorEnvelope'), exchange.body);
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
    if (!API_PATH.test(path) || NOT_REST.test(path)) return null;
    // A CORS preflight belongs to the CORS protocol, not to an operation.
    if (exchange.method.toUpperCase() === 'OPTIONS') return null;
    const version = exchange.headers.get('api-version');
    const validator = version ? this.validators.get(Number(version)) : undefined;
    if (!validator) return [`${exchange.method} ${exchange.path} → ${exchange.status}: REST response with API-Version ${JSON.stringify(version)}, which names no document`];
    return validator.validate(exchange);
  }
}

let shared: Promise<ContractChecker> | undefined;

/** The checker over this code's v1 and v2 documents, generated once per test process. */
export function contractChecker(): Promise<ContractChecker> {
  shared ??= generateOpenApiDocuments().then(
    (documents) => new ContractChecker(new Map([...documents].map(([version, document]) => [version, new OpenApiResponseValidator(document as OpenApiDocument)]))),
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
