import { graphqlConnectionTypeDefs, graphqlListTypeDefs } from '../../core/querying/list-graphql.ts';
import { POST_QUERY } from './posts.query.ts';

/** The posts slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in posts.resolvers.ts. */
export const postsTypeDefs = /* GraphQL */ `
  ${graphqlListTypeDefs(POST_QUERY, 'Post')}

  ${graphqlConnectionTypeDefs('Post')}

  type Post {
    id: ID!
    title: String!
    content: String!
    author: User!
    """
    The post's comments, oldest first (limit 1-100).
    """
    comments(limit: Int = 20, offset: Int = 0): [Comment!]!
    """
    ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z.
    """
    createdAt: String!
    """
    With the list's \`search\`: how well the post matches it (higher is better; compare within one list only). Null otherwise.
    """
    searchScore: Float
    """
    With the list's \`search\`: each field named (title, content), its text HTML-escaped with the matched terms in <mark>…</mark>, cut to about 30 words around the best match, as REST's \`_search.highlights\`. Null otherwise.
    """
    highlights(fields: [String!]!): [SearchHighlight!]
  }

  input CreatePostInput {
    title: String!
    content: String!
    authorId: ID!
  }

  input UpdatePostInput {
    title: String
    content: String
  }

  extend type Query {
    """
    Null when no post has this id.
    """
    post(id: ID!): Post
    """
    Posts, newest first, optionally of one author (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md).
    """
    posts(
      authorId: ID
      limit: Int = 20
      offset: Int = 0
      filter: PostFilter
      orderBy: [PostOrder!]
      """
      Full-text search of title and content, web-search syntax as REST's \`q\` (docs/QUERYING.md): best match first unless \`orderBy\` says otherwise.
      """
      search: String
    ): [Post!]!
    """
    The same list by key: each page starts right after the one before (\`after\`: its \`pageInfo.endCursor\`, with the same filter and orderBy), so any depth costs what the first page costs.
    """
    postsConnection(
      authorId: ID
      limit: Int = 20
      after: String
      filter: PostFilter
      orderBy: [PostOrder!]
      """
      Full-text search, as on \`posts\`.
      """
      search: String
    ): PostConnection!
  }

  extend type Mutation {
    """
    For the caller (or any author, for an admin).
    """
    createPost(input: CreatePostInput!): Post!
    """
    The post's author or an admin; the fields given change.
    """
    updatePost(id: ID!, input: UpdatePostInput!): Post!
    """
    The post's author or an admin. False when no such post exists.
    """
    deletePost(id: ID!): Boolean!
  }
`;
