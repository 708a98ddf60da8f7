import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { hugeNumberText } from './fuzz-arbitraries.test-support.ts';
import { createChecker, FUZZ_ENV, FUZZ_SEED, runs, send } from './fuzz.test-support.ts';

const FIELDS = [
  'users',
  'user',
  'posts',
  'post',
  'author',
  'comments',
  'id',
  'name',
  'email',
  'title',
  'content',
  'createdAt',
  'age',
  'text',
  '__typename',
  'nope',
];
const name = fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,8}$/);
const argValue = fc.oneof(
  hugeNumberText,
  fc.integer().map(String),
  fc.constantFrom('"1"', '"x"', 'null', '-1', '0', '[1]', '{a: 1}', '$v', 'true'),
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
);
const args = fc
  .array(fc.tuple(fc.constantFrom('limit', 'offset', 'id', 'authorId', 'x'), argValue), { maxLength: 3 })
  .map((pairs) => (pairs.length === 0 ? '' : `(${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')})`));

/** A syntactically valid selection set from a grammar: aliases, arguments and nesting at random. */
const selection: fc.Arbitrary<string> = fc.letrec<{ set: string; field: string }>((tie) => ({
  field: fc
    .tuple(
      fc.option(name, { nil: undefined }),
      fc.constantFrom(...FIELDS),
      args,
      fc.option(tie('set'), { nil: undefined, depthSize: 'small' }),
    )
    .map(([alias, field, a, set]) => `${alias ? `${alias}: ` : ''}${field}${a}${set ? ` ${set}` : ''}`),
  set: fc.array(tie('field'), { minLength: 1, maxLength: 4 }).map((fields) => `{ ${fields.join(' ')} }`),
})).set;

const document = fc.oneof(
  { arbitrary: selection, weight: 6 },
  { arbitrary: selection.map((s) => `query Q($v: Int) ${s}`), weight: 2 },
  // Deep nesting, far past the depth limit.
  {
    arbitrary: fc
      .integer({ min: 5, max: 400 })
      .map((n) => `{ users ${'{ posts { author '.repeat(n)}{ id }${' } }'.repeat(n)} }`),
    weight: 1,
  },
  // Huge numbers of aliases, past the alias cap and the parser's token limit.
  {
    arbitrary: fc
      .integer({ min: 10, max: 6000 })
      .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: users { id }`).join(' ')} }`),
    weight: 1,
  },
  // Fragment cycles and spreads of unknown fragments.
  {
    arbitrary: fc.constantFrom(
      '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
      '{ ...Missing }',
      'query { users { ...F } } fragment F on User { posts { author { ...F } } }',
    ),
    weight: 1,
  },
  // Plain noise and broken syntax.
  { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 2 },
  { arbitrary: selection.map((s) => s.slice(0, Math.max(1, s.length - 3))), weight: 1 },
);

/** Each mutation with exactly the variables it declares (an unused variable would fail validation before anything runs). */
const MUTATIONS = [
  'mutation M($input: CreateUserInput!) { createUser(input: $input) { id } }',
  'mutation M($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }',
  'mutation M($id: ID!) { deleteUser(id: $id) }',
  'mutation M($input: CreatePostInput!) { createPost(input: $input) { id } }',
];

for (const dialect of DIALECTS) {
  describe(`GraphQL fuzzing (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let checker: ReturnType<typeof createChecker>;
    let tokens: (string | undefined)[];
    before(async () => {
      t = await startTestServer(dialect, FUZZ_ENV);
      const owner = await t.createUser();
      await t.request('POST', `/api/users/${owner.id}/posts`, {
        token: owner.token,
        body: { title: 'Fuzz', content: 'Fuzz' },
      });
      tokens = [undefined, owner.token, t.adminToken];
      checker = createChecker(t);
      await checker.reset();
    });
    after(() => t?.close());

    const headers = (token: string | undefined, accept: string) => ({
      'content-type': 'application/json',
      accept,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });

    it('never fails, hangs or changes data on generated documents, over POST and GET', async () => {
      await fc.assert(
        fc.asyncProperty(
          document,
          fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
          fc.option(fc.oneof(name, fc.string({ maxLength: 10 })), { nil: undefined }),
          fc.nat(2),
          fc.constantFrom('application/json', 'application/graphql-response+json', '*/*'),
          fc.boolean(),
          async (query, variables, operationName, who, accept, overGet) => {
            const request = overGet
              ? {
                  method: 'GET',
                  path: `/graphql?${new URLSearchParams({ query: query.slice(0, 2000), ...(operationName ? { operationName } : {}) })}`,
                  headers: headers(tokens[who], accept),
                }
              : {
                  method: 'POST',
                  path: '/graphql',
                  headers: headers(tokens[who], accept),
                  body: JSON.stringify({ query, variables, operationName }),
                };
            await checker.check(request, await send(t, request), 'graphql');
          },
        ),
        { seed: FUZZ_SEED, numRuns: runs(300) },
      );
    });

    it('never fails, hangs or changes data on generated mutation variables', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...MUTATIONS),
          fc.jsonValue({ maxDepth: 3 }),
          fc.oneof(fc.jsonValue({ maxDepth: 1 }), hugeNumberText.map(Number)),
          fc.nat(2),
          async (query, input, id, who) => {
            const body = JSON.stringify({ query, variables: { input, id } });
            const request = {
              method: 'POST',
              path: '/graphql',
              headers: headers(tokens[who], 'application/json'),
              body,
            };
            await checker.check(request, await send(t, request), 'graphql');
          },
        ),
        { seed: FUZZ_SEED, numRuns: runs(150) },
      );
    });

    it('never fails on bodies that are not GraphQL requests', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
            fc.string({ unit: 'binary', maxLength: 100 }),
          ),
          fc.constantFrom('application/json', 'application/graphql', 'text/plain'),
          async (body, contentType) => {
            const request = { method: 'POST', path: '/graphql', headers: { 'content-type': contentType }, body };
            await checker.check(request, await send(t, request), 'graphql');
          },
        ),
        { seed: FUZZ_SEED, numRuns: runs(80) },
      );
    });
  });
}
