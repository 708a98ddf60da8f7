/** The comments slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in comments.resolvers.ts. */
export const commentsTypeDefs = /* GraphQL */ `
  type Comment {
    id: ID!
    text: String!
    author: User!
    post: Post!
  }
`;
