import { registerBatchRoute } from '../../core/bulk/batch.http.ts';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { ifMatchPrecondition } from '../../core/http/caching.ts';
import { servesVersions } from '../../core/http/versioning.ts';
import { EmptyBody, Id } from '../../core/http/schemas.ts';
import { pageWindow, parseFields, pickFields } from '../../core/pagination.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import type { Embedding } from '../../core/querying/embedding.ts';
import type { Precondition } from '../../core/precondition.ts';
import { USER_FIELDS, type User } from './user.ts';
import { toUserView, userLinks } from './users.presenter.ts';
import {
  CreateUserInput,
  ListUsersQuery,
  ReplaceUserInput,
  UpdateUserInput,
  UserList,
  UserByIdQuery,
  UserView,
} from './users.schemas.ts';
import { PermanentParameter, restoreRouteOptions } from '../history/trash.representation.ts';
import { USER_PAGE_RULES, type UsersService } from './users.service.ts';
import { includedListAnswer } from '../history/trash-include.ts';

const UserParams = Type.Object({ userId: Id });
const ERASE_VERSIONS = [2] as const;
const tags = ['users'];

/** The 409 of a sign-up or a change of email, as the OpenAPI document lists it. */
const EMAIL_TAKEN = {
  409: {
    description: 'The email belongs to another user (`CONFLICT`)',
    code: 'CONFLICT',
    message: 'Email already in use',
  },
};

/** A write's `If-Match` precondition: compared with the user as `GET /users/:userId` presents it. */
const ifMatchOf = (request: FastifyRequest, reply: FastifyReply): Precondition<User> | undefined =>
  ifMatchPrecondition(request, reply, UserView, (user: User) => toUserView(user, request.apiPrefix, request.principal));

/** REST adapter for users: each handler is a thin call into the users service. */
export const usersRoutes: FastifyPluginAsyncTypebox<{
  users: UsersService;
  embedding: Embedding;
  idempotency: IdempotencyStore;
}> = async (app, { users, embedding, idempotency }) => {
  // DECISIONS §18: admins' batches over the same service calls.
  registerBatchRoute(app, {
    resource: 'users',
    access: 'admin',
    batch: users.batch,
    idempotency,
    schema: UserView,
    view: (user, request) => toUserView(user, request.apiPrefix, request.principal),
  });
  app.get(
    '/users',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'List users', querystring: ListUsersQuery, response: { 200: UserList } },
    },
    async (request) => {
      if (request.query.trashed === 'only') {
        const trashed = await users.listTrashedUsers(request.principal, request.query);
        return {
          data: trashed.items.map((user) => toUserView(user, request.apiPrefix, request.principal)),
          pagination: {
            page: 1,
            limit: trashed.limit,
            hasNext: trashed.nextCursor !== null,
            hasPrev: false,
            nextCursor: trashed.nextCursor,
          },
        };
      }
      if (request.query.trashed === 'include') {
        const query = { ...request.query, trashed: undefined, page: undefined, count: 'none' as const };
        return includedListAnswer({
          principal: request.principal,
          resource: 'user',
          cursor: request.query.cursor,
          page: request.query.page,
          limit: pageWindow({ limit: query.limit }, USER_PAGE_RULES).limit,
          live: (cursor) => users.listUsers(request.principal, { ...query, cursor }),
          trash: (cursor, limit) => users.listTrashedUsers(request.principal, { limit, cursor }),
          view: (user: User) => toUserView(user, request.apiPrefix, request.principal),
        });
      }
      const fields = parseFields(request.query.fields, USER_FIELDS);
      const embed = embedding.forRequest('user', request);
      const page = await users.listUsers(request.principal, request.query);
      const data = page.items.map((user) => ({
        ...pickFields(user, fields),
        _links: userLinks(request.apiPrefix, user.id, request.principal),
      }));
      return { data: await embed.list(data), pagination: queriedPaginationOf(page) };
    },
  );

  app.post(
    '/users',
    {
      config: { access: 'public', openapi: { errors: EMAIL_TAKEN } },
      schema: { tags, summary: 'Create a user (sign-up)', body: CreateUserInput, response: { 201: UserView } },
    },
    async (request, reply) => {
      const user = await users.createUser(request.principal, request.body);
      const view = toUserView(user, request.apiPrefix, request.principal);
      return reply.code(201).header('location', view._links.self.href).send(view);
    },
  );

  app.get(
    '/users/:userId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read a user (`trashed=include`: in the trash too, admins)',
        params: UserParams,
        querystring: UserByIdQuery,
        response: { 200: UserView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('user', request);
      const { userId } = request.params;
      const user =
        request.query.trashed === 'include'
          ? await users.getUserOrTrashed(request.principal, userId)
          : await users.getUser(request.principal, userId);
      return embed.one(toUserView(user, request.apiPrefix, request.principal));
    },
  );

  app.post(
    '/users/:userId/restore',
    restoreRouteOptions({
      access: 'admin',
      tags,
      summary: 'Restore a user from the trash with exactly what their deletion took (admin)',
      params: UserParams,
      view: UserView,
    }),
    async (request) =>
      toUserView(
        await users.restoreUser(request.principal, request.params.userId),
        request.apiPrefix,
        request.principal,
      ),
  );

  // DECISIONS §19: erase is v2's (not in v1's route table, refused in a negotiated v1).
  if (servesVersions(app, ERASE_VERSIONS)) {
    app.post(
      '/users/:userId/erase',
      {
        config: { access: 'admin', openapi: { versions: ERASE_VERSIONS } },
        schema: {
          tags,
          summary: 'Erase a user for good (the right to be forgotten, admin, v2); a tombstone stays for their orders',
          params: UserParams,
          body: EmptyBody,
          response: { 200: UserView },
        },
      },
      async (request) => {
        const erased = await users.eraseUser(request.principal, request.params.userId);
        return toUserView(erased, request.apiPrefix, request.principal);
      },
    );
  }

  app.put(
    '/users/:userId',
    {
      config: { access: 'user', openapi: { ifMatch: true, errors: EMAIL_TAKEN } },
      schema: {
        tags,
        summary: 'Replace a user',
        params: UserParams,
        body: ReplaceUserInput,
        response: { 200: UserView },
      },
    },
    async (request, reply) => {
      const user = await users.replaceUser(
        request.principal,
        request.params.userId,
        request.body,
        ifMatchOf(request, reply),
      );
      return toUserView(user, request.apiPrefix, request.principal);
    },
  );

  app.patch(
    '/users/:userId',
    {
      config: { access: 'user', openapi: { ifMatch: true, errors: EMAIL_TAKEN } },
      schema: {
        tags,
        summary: 'Update some fields of a user',
        params: UserParams,
        body: UpdateUserInput,
        response: { 200: UserView },
      },
    },
    async (request, reply) => {
      const user = await users.updateUser(
        request.principal,
        request.params.userId,
        request.body,
        ifMatchOf(request, reply),
      );
      return toUserView(user, request.apiPrefix, request.principal);
    },
  );

  app.delete(
    '/users/:userId',
    {
      config: {
        access: 'user',
        openapi: {
          ifMatch: true,
          errors: {
            409: {
              description: 'The user has orders, which are kept (`CONFLICT`)',
              code: 'CONFLICT',
              message: 'User 7 has orders and cannot be deleted',
            },
          },
        },
      },
      schema: {
        tags,
        summary:
          'Move a user to the trash with their posts, comments and likes, or remove them for good (`permanent=true`, admins)',
        params: UserParams,
        querystring: PermanentParameter,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const deleted = await users.deleteUser(request.principal, request.params.userId, ifMatchOf(request, reply), {
        permanent: request.query.permanent,
      });
      if (!deleted) throw AppError.notFound(`User ${request.params.userId}`);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/users/:userId/verify-email',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Mark the email as verified (admin)',
        params: UserParams,
        body: EmptyBody,
        response: { 200: UserView },
      },
    },
    async (request) =>
      toUserView(
        await users.verifyEmail(request.principal, request.params.userId),
        request.apiPrefix,
        request.principal,
      ),
  );

  app.post(
    '/users/:userId/actions/promote-to-admin',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Give the user the admin role (admin)',
        params: UserParams,
        body: EmptyBody,
        response: { 200: UserView },
      },
    },
    async (request) =>
      toUserView(
        await users.promoteToAdmin(request.principal, request.params.userId),
        request.apiPrefix,
        request.principal,
      ),
  );
};
