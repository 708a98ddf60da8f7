/** An OpenAPI document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
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

/** Every operation of the document, with its lower-case method and its path. */
export function* operationsOf(
  document: OpenApiDocument,
): Generator<[path: string, method: string, operation: Operation]> {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method)) yield [path, method, operation];
    }
  }
}
