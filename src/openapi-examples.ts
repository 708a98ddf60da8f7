import { existsSync, readFileSync } from 'node:fs';
import type { ApiVersion } from './core/http/versioning.ts';
import type { RecordedExamples } from './core/openapi/document-examples.ts';

/**
 * Real answers of the service, recorded over the demo data by `npm run openapi:examples`
 * (scripts/record-openapi-examples.ts) and shown as the OpenAPI documents' examples: links, methods
 * and states as the service sends them, not values made up from the schemas.
 */
export const OPENAPI_EXAMPLES_FILE = new URL('../src/openapi-examples.json', import.meta.url);

let loaded: Partial<Record<ApiVersion, RecordedExamples>> | undefined;

/** Read once per process: every app built in it (the test suites build hundreds) shares the same file. */
export function loadOpenApiExamples(): Partial<Record<ApiVersion, RecordedExamples>> {
  loaded ??= existsSync(OPENAPI_EXAMPLES_FILE)
    ? (JSON.parse(readFileSync(OPENAPI_EXAMPLES_FILE, 'utf8')) as Partial<Record<ApiVersion, RecordedExamples>>)
    : {};
  return loaded;
}
