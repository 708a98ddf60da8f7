import type { Principal } from '../../core/access/principal.ts';
import type { DomainEvent } from '../../modules/events/event.ts';
import { visibleTo, type User } from '../../modules/users/user.ts';

/** DECISIONS §11: the Subscription root type (composed into the schema by graphql/schema.ts). */
export const subscriptionTypeDefs = /* GraphQL */ `
  type Subscription {
    """
    New posts, of one author when given.
    """
    postCreated(authorId: ID): Post!
    """
    New comments of one post.
    """
    commentAdded(postId: ID!): Comment!
    """
    Changes to one user.
    """
    userUpdated(id: ID!): User!
  }
`;

/** The event that feeds each Subscription field, and whether an event's data matches the field's argument. */
export const SUBSCRIPTION_SOURCES = {
  postCreated: { type: 'post.created', key: 'authorId', data: 'authorId', optional: true },
  commentAdded: { type: 'comment.created', key: 'postId', data: 'postId', optional: false },
  userUpdated: { type: 'user.updated', key: 'id', data: 'id', optional: false },
} as const;
export type SubscriptionField = keyof typeof SUBSCRIPTION_SOURCES;
export const SUBSCRIBED_EVENT_TYPES = Object.values(SUBSCRIPTION_SOURCES).map((source) => source.type);

/** The event's `data` (an admin's `/api/v2` view) as the domain object the GraphQL types resolve, without `_links`. */
function domainObject(data: Record<string, unknown>): Record<string, unknown> {
  const object = { ...data };
  delete object._links;
  return object;
}

/**
 * The root value one subscriber's payload is resolved on: a fresh object per subscriber (relations read
 * with lists are set on it), and a user's e-mail as that subscriber may see it (`visibleTo`, the rule of
 * every other read).
 */
export function payloadRoot(field: SubscriptionField, event: DomainEvent, viewer: Principal | null): object {
  const object = domainObject(event.data);
  return { [field]: field === 'userUpdated' ? visibleTo(viewer, object as unknown as User) : object };
}

/**
 * The Subscription fields' resolvers: `postCreated` and `userUpdated` are read from the root value
 * (graphql-jit's default resolver); `commentAdded` is a batched field, because Comment is read with
 * lists (batched-resolvers.ts): its author and post are read right after it, as for `Post.comments`.
 */
export function subscriptionResolvers() {
  return {
    resolvers: {},
    batched: {
      Subscription: {
        commentAdded: (queries: { obj: unknown }[]) =>
          Promise.resolve(queries.map((query) => (query.obj as { commentAdded: unknown }).commentAdded)),
      },
    },
  };
}
