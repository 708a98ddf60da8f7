import { operationsOf, type Content, type OpenApiDocument } from './openapi-document.ts';
import { exampleOf } from './schema-example.ts';

/**
 * Real answers of the service, recorded per operation (`GET /users/{userId}`) of one version: the
 * request body sent and the response body per status. The caller passes them in (src/openapi-examples.ts).
 */
export type RecordedExamples = Record<string, { request?: unknown; responses: Record<string, unknown> }>;

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
 * Every JSON request and response body gets an example: the recorded answer of the service where
 * there is one, else one built from its schema.
 */
export function addExamples(document: OpenApiDocument, recorded: RecordedExamples): void {
  const resolve = resolverOf(document);
  for (const [path, method, op] of operationsOf(document)) {
    const real = recorded[`${method.toUpperCase()} ${path}`];
    const bodies: [Content | undefined, boolean, unknown][] = [
      [op.requestBody?.content, true, real?.request],
      ...Object.entries(op.responses ?? {}).map(([status, response]): [Content | undefined, boolean, unknown] => [
        response.content as Content | undefined,
        false,
        real?.responses[status],
      ]),
    ];
    // @fastify/swagger marks every declared body required; one that accepts null (an action's `EmptyBody`) may be left out.
    const bodyType = Object.values(op.requestBody?.content ?? {})[0]?.schema as { type?: unknown } | undefined;
    if (op.requestBody && Array.isArray(bodyType?.type) && bodyType.type.includes('null'))
      Object.assign(op.requestBody, { required: false });
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
  // What the service sends is shown in full, built from its schema.
  for (const [, , op] of operationsOf(document, 'webhooks')) {
    for (const media of Object.values(op.requestBody?.content ?? {})) {
      if (media.example === undefined && media.schema !== undefined) media.example = exampleOf(media.schema, resolve);
    }
  }
}
