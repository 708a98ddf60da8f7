import { Type, type TSchema } from 'typebox';
import { EmptyBody, Named } from '../../core/http/schemas.ts';
import type { DeletionItem, TrashFields } from './trash.types.ts';

/** The trash fields a trashed item carries in REST (DECISIONS §19): absent on a live item. */
export const TrashActor = Named(
  'TrashActor',
  Type.Object({ type: Type.Enum(['user', 'system']), id: Type.Union([Type.Integer(), Type.Null()]) }),
);
export const trashProperties = {
  deletedAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'In the trash since (trashed items only)' }),
  ),
  deletedBy: Type.Optional(TrashActor),
  deletionId: Type.Optional(Type.String({ description: 'The deletion it went with (a user’s cascade shares one)' })),
  purgeAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the workers remove it for good' })),
};

/**
 * `trashed`'s one value, as a pattern rather than a one-value `enum`: an API console (Scalar, the /docs
 * page) fills every enum parameter with its first value, and would send `trashed=only` (admins: a 403
 * for anyone else) with every list it tries. The pattern says the same rule and suggests nothing.
 */
const onlyValue = <V extends string>(value: V, description: string) =>
  Type.Optional(Type.Unsafe<V>(Type.String({ pattern: `^${value}$`, description: `\`${value}\`: ${description}` })));

/** `?trashed=` on a read by id: `include` also finds an item in the trash. */
export const TrashedReadParameter = {
  trashed: onlyValue('include', 'also find the item in the trash (admins; authors for their own posts and comments)'),
};

/**
 * `?trashed=` on a list: `only` lists the trash, most recently deleted first, by cursor; `include` the live
 * list (its filters and sort) then the trash, by one cursor (trash-include.ts). A pattern, as above.
 */
export const TrashedListParameter = {
  trashed: Type.Optional(
    Type.Unsafe<'only' | 'include'>(
      Type.String({
        pattern: '^(only|include)$',
        description:
          '`only`: list the trash instead, most recently deleted first, no filters or sort; `include`: the live list (its filters and sort) then the trash, most recently deleted first; trashed items carry `deletedAt`, `deletedBy`, `deletionId`, `purgeAt`. Admins; authors see their own trashed posts and comments; cursor paging',
      }),
    ),
  ),
};

/** `?permanent=true` on a delete: remove at once, trash and all (admins). */
export const PermanentParameter = Type.Object({
  permanent: Type.Optional(Type.Boolean({ description: 'Remove at once, not to the trash (admins)' })),
});

/** The errors of `POST .../restore` beyond the usual ones, for the OpenAPI documents. */
export const TRASH_RESTORE_ERRORS = {
  409: {
    description: 'The item is not in the trash (`NOT_DELETED`), or a live item took its unique key (`CONFLICT`)',
    code: 'NOT_DELETED',
    message: 'post 7 is not in the trash',
  },
} as const;

/** The domain value with its trash fields, when it has any. */
export const withTrash = <T extends object>(value: T, trash: TrashFields | undefined): T & Partial<TrashFields> =>
  trash ? { ...value, ...trash } : value;

/** The events of a restore or a purge: one per user, post, comment or product it brought back or removed. */
export type TrashEvents = {
  'user.restored': { id: number };
  'user.purged': { id: number };
  'post.restored': { id: number };
  'post.purged': { id: number };
  'comment.restored': { id: number; postId: number };
  'comment.purged': { id: number; postId: number };
  'product.restored': { id: number };
  'product.purged': { id: number };
};

/** Each trash event's data as it is (`{id}`; a comment's `{id, postId}`, as its `*.deleted`). */
export const TRASH_EVENT_VIEWS = {
  'user.restored': (data) => data,
  'user.purged': (data) => data,
  'post.restored': (data) => data,
  'post.purged': (data) => data,
  'comment.restored': (data) => data,
  'comment.purged': (data) => data,
  'product.restored': (data) => data,
  'product.purged': (data) => data,
} satisfies { [K in keyof TrashEvents]: (value: TrashEvents[K]) => Record<string, unknown> };

const Deleted = Type.Object({ id: Type.Integer() }, { additionalProperties: false });
const DeletedComment = Type.Object({ id: Type.Integer(), postId: Type.Integer() }, { additionalProperties: false });
/** The trash events' `data` schemas (the documents' `webhooks`). */
export const TRASH_EVENT_PAYLOADS = {
  'user.restored': Named('RestoredUser', Deleted),
  'user.purged': Named('PurgedUser', Deleted),
  'post.restored': Named('RestoredPost', Deleted),
  'post.purged': Named('PurgedPost', Deleted),
  'comment.restored': Named('RestoredComment', DeletedComment),
  'comment.purged': Named('PurgedComment', DeletedComment),
  'product.restored': Named('RestoredProduct', Deleted),
  'product.purged': Named('PurgedProduct', Deleted),
};

type TrashEventOf = { [K in keyof TrashEvents]: { type: K; data: TrashEvents[K] } }[keyof TrashEvents];

/** The events a restore or purge of these items emits, in order. */
export function trashEventsOf(items: readonly DeletionItem[], kind: 'restored' | 'purged'): TrashEventOf[] {
  const events: TrashEventOf[] = [];
  for (const item of items) {
    if (item.id === null) continue;
    if (item.resource === 'comment') {
      events.push({ type: `comment.${kind}`, data: { id: item.id, postId: Number(item.row.post_id) } });
    } else if (item.resource === 'user' || item.resource === 'post' || item.resource === 'product') {
      events.push({ type: `${item.resource}.${kind}`, data: { id: item.id } } as TrashEventOf);
    }
  }
  return events;
}

/** Records them with a service's recorder (its events include `TrashEvents`). */
export async function recordTrashEvents(
  record: <K extends keyof TrashEvents>(type: K, data: TrashEvents[K]) => Promise<void>,
  items: readonly DeletionItem[],
  kind: 'restored' | 'purged',
): Promise<void> {
  for (const event of trashEventsOf(items, kind)) await record(event.type, event.data as never);
}

/**
 * The options of a `POST .../{id}/restore` route (DECISIONS §19), the same for every resource of the trash
 * but for who may, the summary, the path's parameters and the item's view.
 */
export function restoreRouteOptions<P extends TSchema, R extends TSchema>(route: {
  access: 'user' | 'admin';
  tags: string[];
  summary: string;
  params: P;
  view: R;
}) {
  return {
    config: { access: route.access, openapi: { errors: TRASH_RESTORE_ERRORS } },
    schema: {
      tags: route.tags,
      summary: route.summary,
      params: route.params,
      body: EmptyBody,
      response: { 200: route.view },
    },
  };
}
