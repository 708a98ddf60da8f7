import { graphqlConnectionTypeDefs, graphqlListTypeDefs } from '../../core/querying/list-graphql.ts';
import { USER_QUERY } from './users.query.ts';

/** The users slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in users.resolvers.ts. */
export const usersTypeDefs = /* GraphQL */ `
  ${graphqlListTypeDefs(USER_QUERY, 'User')}

  ${graphqlConnectionTypeDefs('User')}

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
    """
    One of user, admin.
    """
    role: String!
    """
    One of active, inactive, suspended (a suspended user gets no token).
    """
    status: String!
    """
    Whether an administrator verified the e-mail; false again whenever it changes.
    """
    emailVerified: Boolean!
    """
    ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z.
    """
    createdAt: String!
    """
    When the user last changed, in the format of createdAt.
    """
    updatedAt: String!
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
    Users by id (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md).
    """
    users(limit: Int = 10, offset: Int = 0, filter: UserFilter, orderBy: [UserOrder!]): [User!]!
    """
    The same list by key: each page starts right after the one before (\`after\`: its \`pageInfo.endCursor\`, with the same filter and orderBy), so any depth costs what the first page costs.
    """
    usersConnection(limit: Int = 10, after: String, filter: UserFilter, orderBy: [UserOrder!]): UserConnection!
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
