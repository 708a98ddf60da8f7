/**
 * A representative example value built from a JSON Schema: the schema's own `examples`,
 * `default`, `const` or first `enum` value where it has one, else a plausible value of its type
 * and format within its limits. Used to give every request and response body in the OpenAPI
 * documents an example that validates against its schema.
 */

type Json = Record<string, unknown>;

const BY_FORMAT: Record<string, string> = {
  'date-time': '2026-11-21T10:00:00.000Z',
  date: '2026-11-21',
  email: 'ada@example.com',
  uri: 'https://example.com/item',
  url: 'https://example.com/item',
};

/** Plausible values tried, in order, against a `pattern` the generated text does not match. */
const PATTERN_CANDIDATES = [
  '2026-11-21T10:00:00.000Z',
  '2026-11-21',
  'USD',
  'example',
  'Example',
  'a',
  'A',
  '1',
  'https://example.com/item',
];

function stringExample(schema: Json, name: string): string {
  const value = plainStringExample(schema, name);
  if (typeof schema.pattern !== 'string') return value;
  const pattern = new RegExp(schema.pattern, 'u');
  return [value, ...PATTERN_CANDIDATES].find((candidate) => pattern.test(candidate)) ?? value;
}

function plainStringExample(schema: Json, name: string): string {
  const format = schema.format as string | undefined;
  if (format && BY_FORMAT[format]) return BY_FORMAT[format];
  if (name === 'href') return '/api/v2/users/1';
  if (name === 'method') return 'GET';
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? 100;
  const base = name ? name.replace(/[^a-z]/gi, '') || 'text' : 'text';
  const text = base.length >= min ? base : base.padEnd(min, 'x');
  return text.slice(0, Math.max(max, min));
}

function numberExample(schema: Json, integer: boolean): number {
  const minimum = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined);
  const maximum = schema.maximum as number | undefined;
  let value = integer ? 1 : 9.99;
  if (minimum !== undefined && value < minimum) value = minimum + (schema.exclusiveMinimum !== undefined ? 1 : 0);
  if (maximum !== undefined && value > maximum) value = maximum;
  return value;
}

/**
 * `minimal` (request bodies): only required properties and those with their own examples, so
 * the example is a sensible request; otherwise every property (responses show everything).
 */
export function exampleOf(
  node: unknown,
  resolve: (node: unknown) => Json,
  minimal = false,
  name = '',
  depth = 0,
): unknown {
  const schema = resolve(node);
  if (depth > 12) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members) && members.length > 0) return exampleOf(members[0], resolve, minimal, name, depth + 1);
  }
  const types = [schema.type].flat().filter((type) => type !== undefined && type !== 'null') as string[];
  const type = types[0] ?? (schema.properties ? 'object' : schema.type === 'null' ? 'null' : undefined);
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      // `_embedded` appears only when a read names `include` (core/querying/embedding.ts): the example is the plain read.
      const wanted = Object.entries(properties).filter(
        ([key, value]) =>
          (key !== '_embedded' || required.has(key)) &&
          (!minimal || required.has(key) || Array.isArray(resolve(value).examples)),
      );
      return Object.fromEntries(
        wanted.map(([key, value]) => [key, exampleOf(value, resolve, minimal, key, depth + 1)]),
      );
    }
    case 'array':
      return schema.items === undefined ? [] : [exampleOf(schema.items, resolve, minimal, name, depth + 1)];
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}
