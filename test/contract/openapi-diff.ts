/**
 * Breaking-change detection between two OpenAPI 3.1 documents (the committed snapshot and the one
 * generated now). No maintained npm tool diffs OpenAPI 3.1 offline (oasdiff is a Go binary), so
 * this is a small structural comparison following the seed's rules:
 *   breaking: a removed path, operation, parameter, response or response field; a changed type;
 *             tightened validation (new required input, narrower limits, removed enum values,
 *             a new pattern or format); a public operation that now needs a token.
 *   not breaking: added paths, operations, optional parameters, response fields; relaxed validation.
 */

type Json = Record<string, unknown>;
type Direction = 'request' | 'response';

export interface ContractChange {
  breaking: boolean;
  where: string;
  message: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const MAX_DEPTH = 40;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function resolver(document: Json) {
  return function resolve(node: unknown): Json {
    let current = node;
    for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 20; hops++) {
      const { $ref, ...siblings } = current;
      const target = ($ref as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>(
          (at, key) => (isObject(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
          document,
        );
      current = { ...(isObject(target) ? target : {}), ...siblings };
    }
    return isObject(current) ? current : {};
  };
}

function typesOf(schema: Json): Set<string> | null {
  if (schema.type === undefined) return null;
  return new Set([schema.type].flat() as string[]);
}

/** Compares two schemas where data flows `direction`: requests must not get stricter, responses not looser. */
class SchemaComparer {
  readonly changes: ContractChange[] = [];
  private readonly resolveOld: (node: unknown) => Json;
  private readonly resolveNew: (node: unknown) => Json;

  constructor(oldDocument: Json, newDocument: Json) {
    this.resolveOld = resolver(oldDocument);
    this.resolveNew = resolver(newDocument);
  }

  add(breaking: boolean, where: string, message: string): void {
    this.changes.push({ breaking, where, message });
  }

  compare(oldNode: unknown, newNode: unknown, direction: Direction, where: string, depth = 0): void {
    if (depth > MAX_DEPTH) return;
    const before = this.resolveOld(oldNode);
    const after = this.resolveNew(newNode);
    this.compareTypes(before, after, direction, where);
    this.compareEnums(before, after, direction, where);
    if (direction === 'request') this.compareLimits(before, after, where);
    this.compareProperties(before, after, direction, where, depth);
    if (before.items !== undefined && after.items !== undefined)
      this.compare(before.items, after.items, direction, `${where}[]`, depth + 1);
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      const a = before[keyword];
      const b = after[keyword];
      if (Array.isArray(a) && Array.isArray(b)) {
        a.forEach((member, index) => {
          if (index < b.length) this.compare(member, b[index], direction, `${where}<${keyword}${index}>`, depth + 1);
        });
        if (a.length !== b.length)
          this.add(
            direction === 'request' ? b.length < a.length : b.length > a.length,
            where,
            `${keyword} has ${a.length} → ${b.length} alternatives`,
          );
      }
    }
  }

  private compareTypes(before: Json, after: Json, direction: Direction, where: string): void {
    const a = typesOf(before);
    const b = typesOf(after);
    if (!a || !b) {
      if (a && !b && direction === 'response') this.add(true, where, `type ${[...a].join('|')} is no longer declared`);
      if (!a && b && direction === 'request') this.add(true, where, `type restricted to ${[...b].join('|')}`);
      return;
    }
    // An integer is a number: number → integer narrows a request, integer → number widens a response.
    const accepts = (set: Set<string>, type: string) => set.has(type) || (type === 'integer' && set.has('number'));
    const lost = [...a].filter((type) => !accepts(b, type));
    const gained = [...b].filter((type) => !accepts(a, type));
    if (direction === 'request' && lost.length > 0)
      this.add(true, where, `type changed ${[...a].join('|')} → ${[...b].join('|')}`);
    else if (direction === 'response' && gained.length > 0)
      this.add(true, where, `type changed ${[...a].join('|')} → ${[...b].join('|')}`);
    else if (lost.length > 0 || gained.length > 0)
      this.add(false, where, `type ${[...a].join('|')} → ${[...b].join('|')}`);
  }

  private compareEnums(before: Json, after: Json, direction: Direction, where: string): void {
    const a = Array.isArray(before.enum)
      ? (before.enum as unknown[])
      : before.const !== undefined
        ? [before.const]
        : null;
    const b = Array.isArray(after.enum) ? (after.enum as unknown[]) : after.const !== undefined ? [after.const] : null;
    if (!b) return;
    if (!a) {
      if (direction === 'request') this.add(true, where, `now restricted to ${JSON.stringify(b)}`);
      return;
    }
    const removed = a.filter((value) => !b.some((other) => JSON.stringify(other) === JSON.stringify(value)));
    const added = b.filter((value) => !a.some((other) => JSON.stringify(other) === JSON.stringify(value)));
    if (removed.length > 0)
      this.add(direction === 'request', where, `allowed values removed: ${JSON.stringify(removed)}`);
    if (added.length > 0) this.add(false, where, `allowed values added: ${JSON.stringify(added)}`);
  }

  /** Validation of input: a larger minimum, a smaller maximum, a new pattern or format is tighter. */
  private compareLimits(before: Json, after: Json, where: string): void {
    const lower = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];
    const upper = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];
    for (const key of [...lower, ...upper]) {
      const a = before[key] as number | undefined;
      const b = after[key] as number | undefined;
      if (a === b) continue;
      const tighter = b !== undefined && (a === undefined || (lower.includes(key) ? b > a : b < a));
      this.add(tighter, where, `${key} ${a ?? 'unset'} → ${b ?? 'unset'}`);
    }
    for (const key of ['pattern', 'format', 'multipleOf']) {
      if (before[key] === after[key]) continue;
      this.add(
        after[key] !== undefined,
        where,
        `${key} ${JSON.stringify(before[key])} → ${JSON.stringify(after[key])}`,
      );
    }
    if (before.additionalProperties !== false && after.additionalProperties === false)
      this.add(true, where, 'unknown properties are now refused');
  }

  private compareProperties(before: Json, after: Json, direction: Direction, where: string, depth: number): void {
    const a = isObject(before.properties) ? before.properties : {};
    const b = isObject(after.properties) ? after.properties : {};
    const requiredBefore = new Set((before.required as string[] | undefined) ?? []);
    const requiredAfter = new Set((after.required as string[] | undefined) ?? []);
    for (const name of Object.keys(a)) {
      const at = `${where}.${name}`;
      if (!(name in b)) {
        // A removed response field breaks readers; a removed input field breaks writers when now refused.
        const breaking = direction === 'response' || after.additionalProperties === false;
        this.add(breaking, at, `property removed`);
        continue;
      }
      if (direction === 'response' && requiredBefore.has(name) && !requiredAfter.has(name))
        this.add(true, at, 'may now be absent');
      this.compare(a[name], b[name], direction, at, depth + 1);
    }
    for (const name of Object.keys(b)) {
      if (name in a) continue;
      const required = requiredAfter.has(name);
      this.add(
        direction === 'request' && required,
        `${where}.${name}`,
        required ? 'required property added' : 'property added',
      );
    }
    if (direction === 'request') {
      for (const name of requiredAfter) {
        if (name in a && !requiredBefore.has(name)) this.add(true, `${where}.${name}`, 'now required');
      }
    }
  }
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}

function operationsOf(document: Json): Map<string, Json> {
  const operations = new Map<string, Json>();
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      if (isObject(item[method])) operations.set(`${method.toUpperCase()} ${path}`, item[method]);
    }
  }
  return operations;
}

function parametersOf(operation: Json, resolve: (node: unknown) => Json): Map<string, Parameter> {
  const list = Array.isArray(operation.parameters) ? operation.parameters : [];
  return new Map(list.map((raw) => resolve(raw) as unknown as Parameter).map((p) => [`${p.in}:${p.name}`, p]));
}

function jsonSchemaOf(holder: unknown, resolve: (node: unknown) => Json): unknown {
  const content = resolve(holder).content;
  if (!isObject(content)) return undefined;
  const media = Object.entries(content).find(([type]) => type.includes('json')) ?? Object.entries(content)[0];
  return isObject(media?.[1]) ? media[1].schema : undefined;
}

function isPublic(operation: Json): boolean {
  return Array.isArray(operation.security) && operation.security.length === 0;
}

/** Every difference between two documents, each marked breaking or not. */
export function diffOpenApi(oldDocument: Json, newDocument: Json): ContractChange[] {
  const comparer = new SchemaComparer(oldDocument, newDocument);
  const resolveOld = resolver(oldDocument);
  const resolveNew = resolver(newDocument);
  const before = operationsOf(oldDocument);
  const after = operationsOf(newDocument);

  for (const [key, operation] of before) {
    const next = after.get(key);
    if (!next) {
      comparer.add(true, key, 'operation removed');
      continue;
    }
    if (isPublic(operation) && !isPublic(next)) comparer.add(true, key, 'now requires authentication');

    const paramsBefore = parametersOf(operation, resolveOld);
    const paramsAfter = parametersOf(next, resolveNew);
    for (const [id, param] of paramsBefore) {
      const now = paramsAfter.get(id);
      if (!now) comparer.add(true, `${key} ${id}`, 'parameter removed');
      else {
        if (!param.required && now.required) comparer.add(true, `${key} ${id}`, 'parameter now required');
        comparer.compare(param.schema, now.schema, 'request', `${key} ${id}`);
      }
    }
    for (const [id, param] of paramsAfter) {
      if (!paramsBefore.has(id))
        comparer.add(
          Boolean(param.required),
          `${key} ${id}`,
          param.required ? 'required parameter added' : 'optional parameter added',
        );
    }

    const bodyBefore = operation.requestBody ? resolveOld(operation.requestBody) : undefined;
    const bodyAfter = next.requestBody ? resolveNew(next.requestBody) : undefined;
    if (!bodyBefore && bodyAfter?.required) comparer.add(true, `${key} body`, 'request body now required');
    if (bodyBefore && bodyAfter) {
      if (!bodyBefore.required && bodyAfter.required) comparer.add(true, `${key} body`, 'request body now required');
      comparer.compare(
        jsonSchemaOf(bodyBefore, resolveOld),
        jsonSchemaOf(bodyAfter, resolveNew),
        'request',
        `${key} body`,
      );
    }

    const responsesBefore = isObject(operation.responses) ? operation.responses : {};
    const responsesAfter = isObject(next.responses) ? next.responses : {};
    for (const [status, response] of Object.entries(responsesBefore)) {
      if (!(status in responsesAfter)) {
        comparer.add(status.startsWith('2'), `${key} ${status}`, 'response removed');
        continue;
      }
      const schemaBefore = jsonSchemaOf(response, resolveOld);
      const schemaAfter = jsonSchemaOf(responsesAfter[status], resolveNew);
      if (schemaBefore !== undefined && schemaAfter === undefined)
        comparer.add(true, `${key} ${status}`, 'response body removed');
      else if (schemaBefore !== undefined) comparer.compare(schemaBefore, schemaAfter, 'response', `${key} ${status}`);
    }
    for (const status of Object.keys(responsesAfter)) {
      if (!(status in responsesBefore)) comparer.add(false, `${key} ${status}`, 'response added');
    }
  }
  for (const key of after.keys()) {
    if (!before.has(key)) comparer.add(false, key, 'operation added');
  }
  return comparer.changes;
}
