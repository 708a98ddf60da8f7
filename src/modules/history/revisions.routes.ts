import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { EmptyBody, Id } from '../../core/http/schemas.ts';
import { servesVersions } from '../../core/http/versioning.ts';
import type { HistoryService } from './history.service.ts';
import { asRevert, REVISION_OPS, REVISION_RESOURCES, type RevisionPage } from './revisions.ts';

/** A string of one of `values` (the validator's `enum`). */
const oneOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** Revisions and the audit are v2's: not in v1's route table, refused in a negotiated v1. */
const VERSIONS = [2] as const;

/** Each resource's path and its id's parameter, as its own routes name it. */
const PATHS = {
  user: ['users', 'userId'],
  post: ['posts', 'postId'],
  comment: ['comments', 'commentId'],
  product: ['products', 'productId'],
} as const;

const Change = Type.Object(
  {
    op: Type.String(),
    path: Type.String(),
    value: Type.Optional(Type.Unknown()),
    from: Type.Optional(Type.String()),
  },
  { title: 'JsonPatchOperation' },
);
const Actor = Type.Object({
  type: oneOf(['user', 'system']),
  id: Type.Union([Type.Integer(), Type.Null()]),
});
const revisionFields = {
  rev: Type.Integer({ description: 'The revision (ids ascend across all items)' }),
  at: Type.String({ format: 'date-time' }),
  op: oneOf(REVISION_OPS),
  actor: Actor,
  requestId: Type.Union([Type.String(), Type.Null()], { description: 'The writing request’s `X-Request-Id`' }),
  changes: Type.Array(Change, { description: 'RFC 6902 JSON Patch from the item’s previous revision' }),
};
const Revision = Type.Object(revisionFields, { title: 'Revision' });
const AuditEntry = Type.Object(
  {
    ...revisionFields,
    resource: oneOf(REVISION_RESOURCES),
    itemId: Type.Integer(),
  },
  { title: 'AuditEntry' },
);
const CursorPagination = Type.Object({
  limit: Type.Integer(),
  hasNext: Type.Boolean(),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Send as `cursor` for the next page' }),
});
const CursorQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};
const ItemState = Type.Object({}, { additionalProperties: true, title: 'RevisionState' });

/**
 * What a restore writes back, per resource: the fields of its `PATCH` (a comment has none: no restore).
 * A user's password is never in a revision; a role or status is an administrator's own decision.
 */
const RESTORED_FIELDS = {
  user: ['name', 'email', 'age'],
  post: ['title', 'content'],
  product: ['name', 'category', 'price', 'stock', 'image', 'description', 'sku'],
} as const;

const RESTORE_ERRORS = {
  409: {
    description: 'A field of the revision no longer exists on the item (`REVISION_INCOMPATIBLE`)',
    code: 'REVISION_INCOMPATIBLE',
    message: 'The revision has fields the item no longer has: price',
  },
  428: {
    description: 'No `If-Match` (`PRECONDITION_REQUIRED`)',
    code: 'PRECONDITION_REQUIRED',
    message: 'A restore needs If-Match with the item’s current ETag',
  },
};

/** An answer of the item's own route turned back into this request's error (its code, message, details). */
function failureOf(status: number, body: string): AppError {
  try {
    const { error } = JSON.parse(body) as { error: { code: string; message: string; details?: [] } };
    return new AppError(error.code as 'CONFLICT', error.message, { status, details: error.details });
  } catch {
    return new AppError('INTERNAL', 'The item could not be restored', { status });
  }
}

const paged = <T>(page: RevisionPage<T>, limit: number | undefined) => ({
  data: page.items,
  pagination: { limit: limit ?? 20, hasNext: page.nextCursor !== null, nextCursor: page.nextCursor },
});

/** REST adapter of revisions and the audit (DECISIONS §19, v2): one registration for the four resources. */
export const revisionsRoutes: FastifyPluginAsyncTypebox<{ history: HistoryService }> = async (app, { history }) => {
  if (!servesVersions(app, VERSIONS)) return;
  const { revisions } = history;

  for (const resource of REVISION_RESOURCES) {
    const [plural, param] = PATHS[resource];
    const Params = Type.Object({ [param]: Id });
    const RevParams = Type.Object({ [param]: Id, rev: Id });
    const idOf = (params: Record<string, number>) => params[param]!;

    app.get(
      `/${plural}/:${param}/revisions`,
      {
        config: { access: 'user', openapi: { versions: VERSIONS } },
        schema: {
          tags: ['history'],
          summary: `A ${resource}'s revisions, newest first (v2; admins and its owner)`,
          params: Params,
          querystring: Type.Object(CursorQuery),
          response: {
            200: Type.Object({ data: Type.Array(Revision), pagination: CursorPagination }, { title: 'RevisionPage' }),
          },
        },
      },
      async (request) => {
        const { limit, cursor } = request.query as { limit?: number; cursor?: string };
        const id = idOf(request.params as Record<string, number>);
        return paged(await revisions.list(request.principal, resource, id, { limit, cursor }), limit);
      },
    );

    app.get(
      `/${plural}/:${param}/revisions/:rev`,
      {
        config: { access: 'user', openapi: { versions: VERSIONS } },
        schema: {
          tags: ['history'],
          summary: `The whole ${resource} as it was at a revision (v2; admins and its owner)`,
          params: RevParams,
          response: { 200: ItemState },
        },
      },
      async (request) => {
        const params = request.params as Record<string, number>;
        return (await revisions.get(request.principal, resource, idOf(params), params.rev!)).state;
      },
    );
  }

  for (const resource of ['user', 'post', 'product'] as const) {
    const [plural, param] = PATHS[resource];
    const RevParams = Type.Object({ [param]: Id, rev: Id });
    app.post(
      `/${plural}/:${param}/revisions/:rev/restore`,
      {
        config: { access: 'user', openapi: { versions: VERSIONS, ifMatch: true, errors: RESTORE_ERRORS } },
        schema: {
          tags: ['history'],
          summary: `Write a ${resource} back as it was at a revision: an update (op \`revert\`) with If-Match (v2)`,
          params: RevParams,
          body: EmptyBody,
          response: { 200: ItemState },
        },
      },
      async (request, reply) => {
        const params = request.params as Record<string, number>;
        const ifMatch = request.headers['if-match'];
        if (!ifMatch) throw new AppError('PRECONDITION_REQUIRED', RESTORE_ERRORS[428].message);
        const { state } = await revisions.get(request.principal, resource, params[param]!, params.rev!);
        // The write is the item's own PATCH, run in this process (its access rule, If-Match, checks, service
        // and event): history imports no resource's code. Its revision carries this request's id, op `revert`.
        // Under this request's prefix and version, so its representation (links included) and ETag are the ones the caller read.
        const url = `${request.apiPrefix}/${plural}/${params[param]}`;
        const headers = {
          ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
          ...(request.headers['api-version'] ? { 'api-version': String(request.headers['api-version']) } : {}),
          'x-request-id': request.id,
        };
        const current = await app.inject({ method: 'GET', url, headers });
        if (current.statusCode !== 200) throw failureOf(current.statusCode, current.body);
        const now = current.json() as Record<string, unknown>;
        const missing = Object.keys(state).filter((field) => !(field in now));
        if (missing.length > 0)
          throw new AppError(
            'REVISION_INCOMPATIBLE',
            `The revision has fields the item no longer has: ${missing.join(', ')}`,
            {
              details: missing.map((field) => ({ field, message: 'no longer exists on the item' })),
            },
          );
        const body: Record<string, unknown> = {};
        for (const field of RESTORED_FIELDS[resource])
          if (field in state && JSON.stringify(state[field]) !== JSON.stringify(now[field])) body[field] = state[field];
        const written = await asRevert(request.id, () =>
          app.inject({ method: 'PATCH', url, headers: { ...headers, 'if-match': ifMatch }, payload: body }),
        );
        if (written.statusCode !== 200) throw failureOf(written.statusCode, written.body);
        const etag = written.headers.etag;
        if (typeof etag === 'string') reply.header('etag', etag);
        return written.json() as Record<string, unknown>;
      },
    );
  }

  app.get(
    '/audit',
    {
      // Exportable as every list of §12 is (§18, core/export): `format=csv|ndjson`.
      config: { access: 'admin', openapi: { versions: VERSIONS }, exportable: true },
      schema: {
        tags: ['history'],
        summary: 'Every revision of every item, newest first (v2; admin)',
        querystring: Type.Object({
          ...CursorQuery,
          actorId: Type.Optional(Id),
          resource: Type.Optional(oneOf(REVISION_RESOURCES)),
          op: Type.Optional(oneOf(REVISION_OPS)),
          from: Type.Optional(Type.String({ format: 'date-time', description: 'At or after' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Before' })),
        }),
        response: {
          200: Type.Object({ data: Type.Array(AuditEntry), pagination: CursorPagination }, { title: 'AuditPage' }),
        },
      },
    },
    async (request) => {
      const query = request.query;
      return paged(await revisions.audit(request.principal, query), query.limit);
    },
  );
};
