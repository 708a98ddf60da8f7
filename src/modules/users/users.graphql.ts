/** The users slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in users.resolvers.ts. */
export const usersTypeDefs = /* GraphQL */ `
  """
  A registered user.
  """
  type User {
    id: ID!
    name: String!
    email: String!
    age: Int
    """
    The user's posts, newest first (limit 1-100).
    """
    posts(limit: Int = 20, offset: Int = 0): [Post!]!
  }

  input CreateUserInput {
    name: String!
    email: String!
    age: Int
  }

  input UpdateUserInput {
    name: String
    email: String
    age: Int
  }

  extend type Query {
    """
    Null when no user has this id.
    """
    user(id: ID!): User
    """
    Users by id (limit 1-100).
    """
    users(limit: Int = 10, offset: Int = 0): [User!]!
  }

  extend type Mutation {
    """
    Sign-up: needs no token.
    """
    createUser(input: CreateUserInput!): User!
    """
    The user themselves or an admin.
    """
    updateUser(id: ID!, input: UpdateUserInput!): User!
    """
    False when no such user exists.
    """
    deleteUser(id: ID!): Boolean!
  }
`;
