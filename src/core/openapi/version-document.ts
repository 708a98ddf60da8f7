import { LATEST_API_VERSION, type ApiVersion } from '../http/versioning.ts';
import { describeTags, describeVersion } from './document-prose.ts';
import { addExamples, type RecordedExamples } from './document-examples.ts';
import { SUCCESS, requestParameters, successHeaders, versionHeaders } from './document-headers.ts';
import { addVendorMedia, applyMedia } from './document-media.ts';
import { hoistNamedSchemas, pickVersion } from './document-schemas.ts';
import { withDefaultErrors } from './error-responses.ts';
import { METHODS, type OpenApiDocument, type Operation } from './openapi-document.ts';
import type { OperationFacts } from './operation-facts.ts';

/*
 * One version's document, made from the whole that @fastify/swagger generates, in steps kept in the
 * files beside this one: the operation's headers and parameters (document-headers.ts), raw and vendor
 * media types (document-media.ts), per-version and named schemas (document-schemas.ts), examples
 * (document-examples.ts), the prose of `info` and `tags` (document-prose.ts), the default error
 * responses (error-responses.ts).
 */

const DEFAULT_FACTS: OperationFacts = {
  access: 'user',
  hasParams: false,
  hasBody: false,
  hasQuery: false,
  hasHeaders: false,
  method: 'get',
  docs: {},
};

/**
 * One version's document from the generated whole: only that version's paths, the default error
 * responses and version headers on every operation, and per-version schemas resolved; the webhooks
 * given (the requests the service sends) as they are, their titled schemas hoisted and examples added.
 */
export function documentForVersion(
  full: OpenApiDocument,
  version: ApiVersion,
  facts: ReadonlyMap<string, OperationFacts>,
  v1Sunset: string,
  recorded: RecordedExamples = {},
  webhooks: Readonly<Record<string, object>> = {},
): OpenApiDocument {
  const prefix = `/api/v${version}/`;
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(full.paths)) {
    if (!path.startsWith(prefix)) continue;
    const copy: Record<string, Operation> = {};
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) {
        copy[method] = operation;
        continue;
      }
      const operationFacts = facts.get(operation.operationId ?? '') ?? DEFAULT_FACTS;
      if (operationFacts.docs.versions && !operationFacts.docs.versions.includes(version)) continue;
      for (const tag of operation.tags ?? []) tags.add(tag);
      const responses = withDefaultErrors(operation.responses, operationFacts);
      if (method === 'get' && !responses['304'] && !operationFacts.docs.stream)
        responses['304'] = { description: SUCCESS[304] };
      const documented = applyMedia(operation, responses, operationFacts) as Operation;
      for (const [status, response] of Object.entries(responses)) {
        const given = response as Record<string, unknown>;
        const headers = {
          ...versionHeaders(version),
          ...successHeaders(method, status, operationFacts.docs.stream === true, operationFacts.docs.ifMatch === true),
          ...(given.headers as object | undefined),
        };
        const description =
          given.description === 'Default Response' ? (SUCCESS[status] ?? 'Success') : given.description;
        responses[status] = { ...given, description, headers };
      }
      copy[method] = {
        ...documented,
        parameters: requestParameters(operation, operationFacts, method),
        responses: responses as Operation['responses'],
      } as Operation;
    }
    if (Object.keys(copy).some((key) => METHODS.has(key))) paths[path.slice(prefix.length - 1)] = copy;
  }
  const whole = Object.keys(webhooks).length > 0 ? { ...full, paths, webhooks } : { ...full, paths };
  const document = pickVersion(whole, version) as OpenApiDocument;
  hoistNamedSchemas(document);
  addExamples(document, recorded);
  addVendorMedia(document, version);
  if (version !== 1) {
    // v2 sends no deprecation headers, so its document does not define them.
    const headers = { ...document.components.headers };
    for (const name of ['Deprecation', 'Sunset', 'SuccessorLink']) delete headers[name];
    document.components = { ...document.components, headers };
  }
  return {
    ...document,
    // Paths are relative to the version's base path, so "try it" in the docs page calls it as is.
    servers: [{ url: `/api/v${version}`, description: `REST API v${version} on this server` }],
    info: {
      ...document.info,
      version: `${version}.0.0`,
      description: describeVersion(version, v1Sunset),
    },
    tags: describeTags(tags),
    ...(version < LATEST_API_VERSION ? { 'x-sunset': v1Sunset } : {}),
  };
}
