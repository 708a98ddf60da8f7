import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateGraphQLTypes, GENERATED_TYPES_FILE } from '../../scripts/graphql-types.ts';

describe('GraphQL types generated from the SDL', () => {
  it('match the schema the server runs (else run npm run graphql:types and commit the file)', async () => {
    assert.equal(readFileSync(GENERATED_TYPES_FILE, 'utf8'), await generateGraphQLTypes());
  });
});
