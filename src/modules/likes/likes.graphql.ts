/** The likes slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in likes.resolvers.ts. */
export const likesTypeDefs = /* GraphQL */ `
  """
  A user's like of a comment (a user likes a comment once).
  """
  type Like {
    commentId: ID!
    userId: ID!
    user: User!
    """
    ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z.
    """
    createdAt: String!
  }

  extend type Comment {
    """
    The comment's likes, oldest first (limit 1-100).
    """
    likes(limit: Int = 20, offset: Int = 0): [Like!]!
  }

  extend type Mutation {
    """
    Likes the comment as the caller; liking it again answers the existing like.
    """
    likeComment(commentId: ID!): Like!
    """
    Removes the caller's like: true when there was one.
    """
    unlikeComment(commentId: ID!): Boolean!
  }
`;
