import { VERSIONS_KEYWORD, type ApiVersion } from '../http/versioning.ts';
import type { OpenApiDocument } from './openapi-document.ts';

/**
 * Every schema of the paths and webhooks with a `title` (core/http/schemas.ts `Named`) becomes a component,
 * `#/components/schemas/<title>`, referenced where it was, so generated clients get named types.
 * Two different shapes under one title get distinct names (`Title2`), never a wrong reference.
 */
export function hoistNamedSchemas(document: OpenApiDocument): void {
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
  if (document.webhooks) document.webhooks = hoist(document.webhooks) as OpenApiDocument['webhooks'];
  document.components = { ...document.components, schemas };
}

/** Replaces each versioned schema (see `Versioned`) by this version's own shape. */
export function pickVersion(node: unknown, version: ApiVersion): unknown {
  if (Array.isArray(node)) return node.map((item) => pickVersion(item, version));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const shapes = object[VERSIONS_KEYWORD] as Record<string, unknown> | undefined;
  if (shapes && typeof shapes === 'object') return pickVersion(shapes[version], version);
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, pickVersion(value, version)]));
}
