/** The comments slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in comments.resolvers.ts. */
export const commentsTypeDefs = /* GraphQL */ `
  type Comment {
    id: ID!
    text: String!
    author: User!
    post: Post!
    """
    ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z.
    """
    createdAt: String!
  }

  """
  A comment on a post, written as the caller.
  """
  input AddCommentInput {
    postId: ID!
    text: String!
  }

  extend type Query {
    """
    Null when no comment has this id.
    """
    comment(id: ID!): Comment
  }

  extend type Mutation {
    """
    Any signed-in user, as themselves.
    """
    addComment(input: AddCommentInput!): Comment!
    """
    The comment's author, the post's author or an admin. False when no such comment exists.
    """
    deleteComment(id: ID!): Boolean!
  }
`;
