/**
 * The GraphQL schema: the seed's types, inputs, queries and mutations exactly, plus only the
 * additions of DECISIONS §6 (`limit`/`offset` on every list field, `Comment.post`).
 * Defaults are declared here so introspection shows them; resolvers clamp to at most 100.
 */
export const typeDefs = /* GraphQL */ `
"""A registered user."""
type User {
  id: ID!
  name: String!
  email: String!
  age: Int
  """The user's posts, newest first (limit 1-100)."""
  posts(limit: Int = 20, offset: Int = 0): [Post!]!
}

type Post {
  id: ID!
  title: String!
  content: String!
  author: User!
  """The post's comments, oldest first (limit 1-100)."""
  comments(limit: Int = 20, offset: Int = 0): [Comment!]!
  """ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z."""
  createdAt: String!
}

type Comment {
  id: ID!
  text: String!
  author: User!
  post: Post!
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

input CreatePostInput {
  title: String!
  content: String!
  authorId: ID!
}

type Query {
  """Null when no user has this id."""
  user(id: ID!): User
  """Users by id (limit 1-100)."""
  users(limit: Int = 10, offset: Int = 0): [User!]!
  """Null when no post has this id."""
  post(id: ID!): Post
  """Posts, newest first, optionally of one author (limit 1-100)."""
  posts(authorId: ID, limit: Int = 20, offset: Int = 0): [Post!]!
}

type Mutation {
  """Sign-up: needs no token."""
  createUser(input: CreateUserInput!): User!
  """The user themselves or an admin."""
  updateUser(id: ID!, input: UpdateUserInput!): User!
  """False when no such user exists."""
  deleteUser(id: ID!): Boolean!
  """For the caller (or any author, for an admin)."""
  createPost(input: CreatePostInput!): Post!
}
`;
