/**
 * GraphQL types from the SDL (GraphQL Code Generator, `typescript` plugin): the argument and input
 * types resolvers are written against. `npm run graphql:types` writes src/modules/graphql-types.generated.ts;
 * `npm test` (test/contract/graphql-types.test.ts) fails when that file no longer matches the SDL.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import { buildSchema, parse, printSchema } from 'graphql';
import { typeDefs } from '../src/graphql/schema.ts';

export const GENERATED_TYPES_FILE = fileURLToPath(
  new URL('../src/modules/graphql-types.generated.ts', import.meta.url),
);

const HEADER =
  '// Generated from the GraphQL SDL by `npm run graphql:types` (scripts/graphql-types.ts). Do not edit.\n';

export async function generateGraphQLTypes(): Promise<string> {
  const output = await codegen({
    filename: GENERATED_TYPES_FILE,
    schema: parse(printSchema(buildSchema(typeDefs))),
    documents: [],
    config: {
      useTypeImports: true,
      enumsAsTypes: true,
      // IDs arrive as strings; the services parse them (core/resolving/context.ts toId).
      scalars: { ID: { input: 'string', output: 'string | number' } },
    },
    plugins: [{ typescript: {} }],
    pluginMap: { typescript: typescriptPlugin },
  });
  return `${HEADER}${output}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED_TYPES_FILE, await generateGraphQLTypes());
  console.log(`wrote ${GENERATED_TYPES_FILE}`);
}
