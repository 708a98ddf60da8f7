/**
 * The reference's GraphQL: only the fields bench W3 and W4 ask for, resolved with Mercurius `loaders`
 * (one statement per level and request, each parent's page cut in SQL).
 */
import type { MercuriusContext } from 'mercurius';
import type pg from 'pg';
import { commentsByPosts, findUser, listUsers, postsByAuthors, usersByIds } from './queries.ts';

export const schema = /* GraphQL */ `
  type User {
    id: ID!
    name: String!
    email: String!
    posts(limit: Int = 20, offset: Int = 0): [Post!]!
  }
  type Post {
    id: ID!
    title: String!
    comments(limit: Int = 20, offset: Int = 0): [Comment!]!
  }
  type Comment {
    id: ID!
    text: String!
    author: User!
  }
  type Query {
    user(id: ID!): User
    users(limit: Int = 10, offset: Int = 0): [User!]!
  }
`;

export interface Caller {
  id: number;
  admin: boolean;
}
declare module 'mercurius' {
  interface MercuriusContext {
    caller: Caller;
  }
}
interface Page {
  limit: number;
  offset: number;
}
type Queries<Parent> = { obj: Parent; params: Page }[];

const clamp = ({ limit, offset }: Page): Page => ({
  limit: Math.min(100, Math.max(1, limit)),
  offset: Math.max(0, offset),
});

/** Children grouped under their parents' order; siblings share the field's arguments (the first query's). */
function groupBy<Child>(parents: number[], children: Child[], parentOf: (child: Child) => number): Child[][] {
  const groups = new Map<number, Child[]>(parents.map((id) => [id, []]));
  for (const child of children) groups.get(parentOf(child))?.push(child);
  return parents.map((id) => groups.get(id)!);
}

/** Another user's email is hidden (as the service: "" in GraphQL) unless the caller is an admin. */
const privateEmail = {
  User: {
    email: (user: { id: number; email: string }, _: unknown, { caller }: MercuriusContext) =>
      caller.admin || caller.id === user.id ? user.email : '',
  },
};

/**
 * The schema, resolvers and loaders. `callers: false` (the bare stack): no caller in the context, so
 * every user's email is answered as stored.
 */
export function graphqlOptions(pool: pg.Pool, { callers = true } = {}) {
  return {
    schema,
    resolvers: {
      Query: {
        user: (_: unknown, { id }: { id: string }) => (/^\d+$/.test(id) ? findUser(pool, Number(id)) : null),
        users: (_: unknown, page: Page) => {
          const { limit, offset } = clamp(page);
          return listUsers(pool, limit, offset);
        },
      },
      ...(callers ? privateEmail : {}),
    },
    loaders: {
      User: {
        async posts(queries: Queries<{ id: number }>) {
          const ids = queries.map((q) => q.obj.id);
          const { limit, offset } = clamp(queries[0]!.params);
          return groupBy(ids, await postsByAuthors(pool, ids, limit, offset), (p) => p.author_id);
        },
      },
      Post: {
        async comments(queries: Queries<{ id: number }>) {
          const ids = queries.map((q) => q.obj.id);
          const { limit, offset } = clamp(queries[0]!.params);
          return groupBy(ids, await commentsByPosts(pool, ids, limit, offset), (c) => c.post_id);
        },
      },
      Comment: {
        async author(queries: Queries<{ author_id: number }>) {
          const ids = [...new Set(queries.map((q) => q.obj.author_id))];
          const users = new Map((await usersByIds(pool, ids)).map((u) => [u.id, u]));
          return queries.map((q) => users.get(q.obj.author_id));
        },
      },
    },
  };
}
