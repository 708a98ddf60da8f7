import type { TSchema } from 'typebox';

type ObjectSchema = { properties?: Record<string, SchemaNode>; 'x-api-versions'?: Record<string, ObjectSchema> };
type SchemaNode = { type?: string | string[]; anyOf?: SchemaNode[]; oneOf?: SchemaNode[] } & Record<string, unknown>;

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** A property whose every type is a scalar (a nullable text, say): arrays and objects are not. */
function isScalar(node: SchemaNode): boolean {
  const options = node.anyOf ?? node.oneOf;
  if (options) return options.every(isScalar);
  const types = [node.type ?? 'object'].flat();
  return types.every((type) => SCALARS.has(type));
}

/** The item schema of a page's `data` in v2 (a `Versioned` one shows each version's shape). */
function itemSchemaOf(response: TSchema | undefined): ObjectSchema | undefined {
  const data = (response as ObjectSchema | undefined)?.properties?.data as { items?: ObjectSchema } | undefined;
  const item = data?.items;
  return item?.['x-api-versions']?.[2] ?? item;
}

/**
 * CSV columns (DECISIONS §18): the item's top-level scalar fields in the v2 representation's order, or
 * the fields `fields=` names in its order (id first), objects among them written as JSON.
 */
export function csvColumnsOf(response: TSchema | undefined, fields: string | undefined): string[] {
  const properties = itemSchemaOf(response)?.properties ?? {};
  if (fields) {
    const named = fields
      .split(',')
      .map((field) => field.trim())
      .filter((field) => field in properties);
    return [...new Set(['id', ...named])].filter((field) => field in properties);
  }
  return Object.entries(properties)
    .filter(([name, node]) => !name.startsWith('_') && isScalar(node))
    .map(([name]) => name);
}
