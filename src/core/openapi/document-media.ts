import type { ApiVersion } from '../http/versioning.ts';
import { operationsOf, type Content, type OpenApiDocument, type Operation } from './openapi-document.ts';
import type { OperationFacts } from './operation-facts.ts';

const BINARY = { type: 'string', format: 'binary' };

/** Raw bodies (avatars) in their own media types instead of the JSON default. */
export function applyMedia(
  operation: Operation,
  responses: Record<string, unknown>,
  facts: OperationFacts,
): Record<string, unknown> {
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
export function addVendorMedia(document: OpenApiDocument, version: ApiVersion): void {
  const vendor = `application/vnd.content.v${version}+json`;
  const withVendor = (content: Content | undefined) => {
    const json = content?.['application/json'];
    if (content && json && !content[vendor]) content[vendor] = { schema: json.schema };
  };
  for (const [, , op] of operationsOf(document)) {
    withVendor(op.requestBody?.content);
    for (const response of Object.values(op.responses ?? {})) withVendor(response.content as Content | undefined);
  }
}
