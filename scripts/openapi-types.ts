/**
 * TypeScript types for a REST client, generated from the v2 OpenAPI document by openapi-typescript.
 * `npm run openapi:types` writes test/client/api-v2.generated.ts; `npm test`
 * (test/client/typed-client.test.ts) fails when that file no longer matches the document, and
 * compiles and runs a typed client (openapi-fetch) over it against a real server.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { generateOpenApiDocuments } from '../src/contract-documents.ts';

export const OPENAPI_TYPES_FILE = fileURLToPath(new URL('../test/client/api-v2.generated.ts', import.meta.url));

const HEADER =
  '// Generated from the REST v2 OpenAPI document by `npm run openapi:types` (scripts/openapi-types.ts). Do not edit.\n';

export async function generateOpenApiTypes(): Promise<string> {
  const document = (await generateOpenApiDocuments([2])).get(2)!;
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { silent: true });
  return `${HEADER}${astToString(ast)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_TYPES_FILE, await generateOpenApiTypes());
  console.log(`wrote ${OPENAPI_TYPES_FILE}`);
}
