/** An OpenAPI document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
  /** OpenAPI 3.1: the requests the service sends (not serves), by name, each a path item. */
  webhooks?: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

/** Media type → `{ schema, example, ... }` of a request or response body. */
export type Content = Record<string, Record<string, unknown>>;

export type Operation = {
  operationId?: string;
  tags?: string[];
  requestBody?: { content?: Content };
  responses?: Record<string, Record<string, unknown>>;
};

/** The keys of a path item that are operations (the others are its parameters, summary, ...). */
export const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Every operation the service serves (`paths`), or with `section: 'webhooks'` every request it sends,
 * with its lower-case method and its path (a webhook's name).
 */
export function* operationsOf(
  document: OpenApiDocument,
  section: 'paths' | 'webhooks' = 'paths',
): Generator<[path: string, method: string, operation: Operation]> {
  for (const [path, item] of Object.entries(document[section] ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method)) yield [path, method, operation];
    }
  }
}
