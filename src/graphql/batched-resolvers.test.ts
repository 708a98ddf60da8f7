import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildSchema,
  parse,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from 'graphql';
import type { LoaderQuery } from '../core/resolving/loaders.ts';
import { assertReadWithList, batchedResolvers } from './batched-resolvers.ts';
import { buildResolvers } from './resolvers.ts';

const schema = buildSchema(`
  type Query { post(id: ID!): Post, comment(id: ID!): Comment }
  type Post { id: ID!, comments(limit: Int): [Comment!]!, author: User! }
  type Comment { id: ID!, author: User!, post: Post!, replies(limit: Int): [Comment!]! }
  type User { id: ID!, name: String! }
`);
const loader = async () => [];

describe('types whose relations are read with their list', () => {
  it('are accepted when every field returning them is batched and their relations take no arguments', () => {
    const batched = { Post: { comments: loader, author: loader }, Comment: { author: loader, post: loader } };
    const withoutRoot = buildSchema(`
      type Query { post(id: ID!): Post }
      type Post { id: ID!, comments(limit: Int): [Comment!]! }
      type Comment { id: ID!, author: User!, post: Post! }
      type User { id: ID! }
    `);
    assert.doesNotThrow(() => assertReadWithList(withoutRoot, batched, new Set(['Comment'])));
  });

  it('are refused when a field returning them is not batched: their relations would be missing', () => {
    const batched = { Post: { comments: loader }, Comment: { author: loader } };
    assert.throws(
      () => assertReadWithList(schema, batched, new Set(['Comment'])),
      /Query\.comment returns Comment but is not a batched field/,
    );
  });

  it('are refused when a relation returns a type read with lists', () => {
    const root = buildSchema(`
      type Query { posts: [Post!]! }
      type Post { id: ID!, comments: [Comment!]! }
      type Comment { id: ID!, replies(limit: Int): [Reply!]!, parent: Comment }
      type Reply { id: ID! }
    `);
    const posts = { Query: { posts: loader }, Post: { comments: loader } };
    const withReplies = buildSchema(`
      type Query { posts: [Post!]! }
      type Post { id: ID!, comments: [Comment!]! }
      type Comment { id: ID!, replies(limit: Int): [Reply!]! }
      type Reply { id: ID! }
    `);
    // A relation with arguments is allowed: it keeps a resolver of its own (batchedResolvers below).
    assert.doesNotThrow(() =>
      assertReadWithList(withReplies, { ...posts, Comment: { replies: loader } }, new Set(['Comment'])),
    );
    assert.throws(
      () => assertReadWithList(root, { ...posts, Comment: { parent: loader } }, new Set(['Comment'])),
      /Comment\.parent returns a type read with lists/,
    );
  });
});

describe('a batched field returning a type read with lists', () => {
  type Comment = { id: number; authorId: number; author?: unknown };
  const calls: { field: string; fields: string[]; ids: number[] }[] = [];
  const comments = async (queries: LoaderQuery<{ id: number }>[]) => {
    calls.push({ field: 'comments', fields: [...queries[0]!.fields], ids: queries.map((q) => q.obj.id) });
    return queries.map((q): Comment[] => [
      { id: q.obj.id * 10, authorId: q.obj.id },
      { id: q.obj.id * 10 + 1, authorId: 7 },
    ]);
  };
  const author = async (queries: LoaderQuery<Comment>[]) => {
    calls.push({ field: 'author', fields: [...queries[0]!.fields].sort(), ids: queries.map((q) => q.obj.authorId) });
    return queries.map((q) => ({ id: q.obj.authorId, name: `User ${q.obj.authorId}` }));
  };
  const resolvers = batchedResolvers({ Post: { comments }, Comment: { author } }, new Set(['Comment']));
  const schema = buildSchema(
    'type Query { posts: [Post!]! } type Post { id: ID!, comments: [Comment!]! } type Comment { id: ID!, author: User! } type User { id: ID!, name: String!, email: String! }',
  );

  /** The resolve info of `Post.comments` in `query`, as an executor hands it to the resolver. */
  function infoOf(query: string): GraphQLResolveInfo {
    const document = parse(query);
    const operation = document.definitions[0] as OperationDefinitionNode;
    const posts = operation.selectionSet.selections[0] as FieldNode;
    const fieldNodes = [
      posts.selectionSet!.selections.find((s) => s.kind === 'Field' && s.name.value === 'comments') as FieldNode,
    ];
    const fragments = Object.fromEntries(
      document.definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d]] : [])),
    );
    const returnType = (schema.getType('Post') as GraphQLObjectType).getFields().comments!.type;
    return { fieldNodes, fragments, returnType } as unknown as GraphQLResolveInfo;
  }

  it('gets no resolver for the relations of that type', () => {
    assert.deepEqual(Object.keys(resolvers), ['Post']);
  });

  it('reads the relations its query selects for every object at once, the subfields of every selection merged, and sets them on the objects', async () => {
    calls.length = 0;
    const info = infoOf(
      '{ posts { comments { id a: author { id } ...F } } } fragment F on Comment { author { name } }',
    );
    const context = {};
    const [one, two] = await Promise.all([1, 2].map((id) => resolvers.Post!.comments!({ id }, {}, context, info)));
    assert.deepEqual(calls, [
      { field: 'comments', fields: ['id', 'author'], ids: [1, 2] },
      { field: 'author', fields: ['id', 'name'], ids: [1, 7, 2, 7] },
    ]);
    assert.deepEqual(one, [
      { id: 10, authorId: 1, author: { id: 1, name: 'User 1' } },
      { id: 11, authorId: 7, author: { id: 7, name: 'User 7' } },
    ]);
    assert.equal((two as Comment[])[0]!.author && ((two as Comment[])[0]!.author as { id: number }).id, 2);
  });

  it('reads no relation the query does not select', async () => {
    calls.length = 0;
    const [list] = await Promise.all([
      resolvers.Post!.comments!({ id: 3 }, {}, {}, infoOf('{ posts { comments { id } } }')),
    ]);
    assert.deepEqual(
      calls.map((call) => call.field),
      ['comments'],
    );
    assert.equal((list as Comment[])[0]!.author, undefined);
  });

  it('keeps a resolver of its own for a relation that takes arguments: two aliases may ask for different pages', () => {
    const withPages = buildSchema(
      'type Query { posts: [Post!]! } type Post { id: ID!, comments: [Comment!]! } type Comment { id: ID!, author: User!, likes(limit: Int): [User!]! } type User { id: ID! }',
    );
    const own = batchedResolvers(
      { Post: { comments }, Comment: { author, likes: author } },
      new Set(['Comment']),
      withPages,
    );
    assert.deepEqual(Object.keys(own).sort(), ['Comment', 'Post']);
    assert.deepEqual(Object.keys(own.Comment!), ['likes']);
  });

  it("is how the service reads a comment's author and post", () => {
    const { batched, readWithList } = buildResolvers({} as never);
    assert.ok(readWithList.has('Comment'));
    assert.deepEqual(Object.keys(batched.Comment ?? {}).sort(), ['author', 'likes', 'post']);
  });
});
