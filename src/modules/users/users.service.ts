import { withBatch } from '../../core/bulk/batch.ts';
import { usersBatchTarget } from './users.batch.ts';
import { requireAdmin, requireSelfOrAdmin, requireSignedIn } from '../../core/access/guards.ts';
import { hashPassword } from '../../core/access/passwords.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import { columnsFor } from '../../core/db/columns.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../core/db/db-errors.ts';
import type { UserRowUpdate } from './users.table.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { pageWindow, type PageRequest } from '../../core/pagination.ts';
import { asGraphqlArguments } from '../../core/querying/list-graphql.ts';
import type { QueriedPage } from '../../core/querying/list-page.ts';
import { DEFAULT_LIST_SETTINGS, type ListSettings } from '../../core/querying/list-grammar.ts';
import { listRequestOf, parseListQuery, type ListOptions } from '../../core/querying/list-query-parse.ts';
import type { Precondition } from '../../core/precondition.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { toUser, USER_COLUMN_OF, visibleTo, type User } from './user.ts';
import * as repo from './users.repository.ts';
import { USER_QUERY } from './users.query.ts';
import { CreateUserInput, ReplaceUserInput, UpdateUserInput } from './users.schemas.ts';
import { createUsersTrash } from './users.trash.ts';
import { createUsersErase, type EraseEvents } from './users.erase.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import { actorOf, assertMayPurge, createTrash, trashActions, trashRecordOf, type Trash } from '../history/trash.ts';

/** The list's page, sort, count and cursor; its filters are every other parameter the grammar names (users.query.ts). */
export type ListUsersOptions = ListOptions;

export const USER_PAGE_RULES = { defaultLimit: 10, maxLimit: 100 };

const checkCreate = createChecker<CreateUserInput>(CreateUserInput);
const checkReplace = createChecker<ReplaceUserInput>(ReplaceUserInput);
const checkUpdate = createChecker<UpdateUserInput>(UpdateUserInput);

const notFound = (id: number) => AppError.notFound(`User ${id}`);

const duplicateEmail = () =>
  AppError.conflict('A user with this email already exists', [{ field: 'email', message: 'is already taken' }]);

/** Only an admin changes roles and statuses, their own included. */
function assertMayChangeRoleOrStatus(actor: Principal | null, input: { role?: unknown; status?: unknown }): void {
  if ((input.role !== undefined || input.status !== undefined) && !isAdmin(actor)) {
    throw AppError.forbidden('Only an administrator may set role or status');
  }
}

async function rowChanges(input: UpdateUserInput): Promise<UserRowUpdate> {
  const changes: UserRowUpdate = {};
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.email !== undefined) changes.email = input.email.toLowerCase();
  if (input.age !== undefined) changes.age = input.age;
  if (input.role !== undefined) changes.role = input.role as User['role'];
  if (input.status !== undefined) changes.status = input.status as User['status'];
  if (input.password !== undefined) changes.password_hash = await hashPassword(input.password);
  return changes;
}

/** The events users emit, by the value their data is built from. */
export type UserEvents = { 'user.created': User; 'user.updated': User; 'user.deleted': { id: number } } & TrashEvents &
  EraseEvents;

export function createUsersService(
  db: Db,
  events: EventRecorder<UserEvents> = noEvents(),
  lists: ListSettings = DEFAULT_LIST_SETTINGS,
  trash: Trash = createTrash({ retentionDays: 30 }),
) {
  const trashed = trashActions(trash, 'user');
  const trashReads = createUsersTrash(db, events, trash);
  /** Runs a write that may take an email already taken (409). */
  async function unique<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateEmail();
      throw error;
    }
  }

  const write = <T>(work: (trx: Db) => Promise<T>): Promise<T> => unique(() => events.transaction(db, work));

  async function change(
    actor: Principal | null,
    id: number,
    input: UpdateUserInput,
    precondition?: Precondition<User>,
  ) {
    requireSelfOrAdmin(actor, id);
    assertMayChangeRoleOrStatus(actor, input);
    const changes = await rowChanges(input);
    return write(async (trx) => {
      const current = await repo.lockUserById(trx, id);
      if (!current) throw notFound(id);
      if (current.erased_at) throw AppError.conflict(`User ${id} was erased`);
      precondition?.(toUser(current));
      if (Object.keys(changes).length === 0) return toUser(current);
      // DECISIONS §2: a new address is unverified. Emails are stored lower-cased, so one that
      // differs only in case is the same address and keeps its verification.
      const verification =
        changes.email !== undefined && changes.email !== current.email ? { email_verified: false } : {};
      const row = await repo.updateUserById(trx, id, { ...changes, ...verification, updated_at: now() });
      await events.record(trx, 'user.updated', toUser(row ?? current));
      return toUser(row ?? current);
    });
  }

  return withBatch(
    db,
    {
      ...trashReads,
      ...createUsersErase(db, events),

      /** The caller's current role and status, for the rights check of writes and admin tokens. */
      async currentRights(id: number) {
        const rights = await repo.findUserRights(db, id);
        // An erased user (DECISIONS §19) signs in nowhere: their tokens are refused as a deleted user's.
        return rights && !rights.erased_at ? { role: rights.role, status: rights.status } : undefined;
      },

      async getUser(actor: Principal | null, id: number): Promise<User> {
        requireSignedIn(actor);
        const row = await repo.findUserById(db, id);
        if (!row) throw notFound(id);
        return visibleTo(actor, toUser(row));
      },

      /** With `fields` (GraphQL's selection), only their columns are read: the other properties are absent. */
      async findUsersByIds(
        viewer: Principal | null,
        ids: readonly number[],
        fields?: Iterable<string>,
      ): Promise<User[]> {
        return (await repo.findUsersByIds(db, ids, columnsFor(fields, USER_COLUMN_OF, ['id']))).map((row) =>
          visibleTo(viewer, toUser(row)),
        );
      },

      /**
       * A page of users by the list's grammar (users.query.ts): filters, sort, count and cursor. Filtering
       * or sorting by email would reveal addresses a caller may not read: admins only (DECISIONS §5).
       */
      async listUsers(actor: Principal | null, options: ListUsersOptions): Promise<QueriedPage<User>> {
        requireSignedIn(actor);
        const query = parseListQuery(USER_QUERY, listRequestOf(options), { admin: isAdmin(actor), ...lists });
        const page = await repo.readUserPage(db, query, pageWindow(options, USER_PAGE_RULES));
        return { ...page, items: page.items.map((row) => visibleTo(actor, toUser(row))) };
      },

      /**
       * One page of users filtered and ordered by the list's grammar, without a total (GraphQL's `users`
       * with `filter` or `orderBy`): the REST list's rules, its 422s named as GraphQL's arguments.
       */
      async queryUserItems(
        actor: Principal | null,
        options: PageRequest & { parameters: Record<string, unknown>; sort: string | undefined },
      ): Promise<User[]> {
        requireSignedIn(actor);
        let query;
        try {
          query = parseListQuery(
            USER_QUERY,
            { sort: options.sort, parameters: options.parameters, count: 'none' },
            { admin: isAdmin(actor), ...lists },
          );
        } catch (error) {
          throw asGraphqlArguments(error);
        }
        const rows = await repo.queryUserRows(db, query, pageWindow(options, USER_PAGE_RULES));
        return rows.map((row) => visibleTo(actor, toUser(row)));
      },

      /** One page of users by id without counting them all: for lists that show no total (GraphQL's `users`). */
      async listUserItems(actor: Principal | null, options: PageRequest): Promise<User[]> {
        requireSignedIn(actor);
        const rows = await repo.listUserRows(db, pageWindow(options, USER_PAGE_RULES));
        return rows.map((row) => visibleTo(actor, toUser(row)));
      },

      /** Sign-up: open to anyone; role and status are for admins only. */
      /** The user with this e-mail (stored lower-case), if any: a batch's upsert key, for admins (the batch checks). */
      async findUserByEmail(email: string): Promise<User | undefined> {
        const row = await repo.findUserByEmail(db, email);
        return row ? toUser(row) : undefined;
      },

      async createUser(actor: Principal | null, raw: unknown): Promise<User> {
        const input = checkCreate(raw);
        assertMayChangeRoleOrStatus(actor, input);
        const timestamp = now();
        const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
        const row = await unique(() =>
          events.recordInsert(
            db,
            'user.created',
            repo.userInsert,
            {
              name: input.name.trim(),
              email: input.email.toLowerCase(),
              age: input.age ?? null,
              role: (input.role as User['role']) ?? 'user',
              status: (input.status as User['status']) ?? 'active',
              email_verified: false,
              password_hash: passwordHash,
              created_at: timestamp,
              updated_at: timestamp,
              erased_at: null,
            },
            toUser,
          ),
        );
        return toUser(row);
      },

      /** PUT: name and email required; an absent age becomes null. */
      replaceUser(actor: Principal | null, id: number, raw: unknown, precondition?: Precondition<User>): Promise<User> {
        const input = checkReplace(raw);
        return change(actor, id, { ...input, age: input.age ?? null }, precondition);
      },

      /** PATCH: only the fields sent change; `{}` changes nothing. */
      updateUser(actor: Principal | null, id: number, raw: unknown, precondition?: Precondition<User>): Promise<User> {
        return change(actor, id, checkUpdate(raw ?? {}), precondition);
      },

      /** Removes the user with their posts, comments and likes; refused while they have orders. */
      /**
       * Moves the user to the trash with their avatar, posts, comments and likes (one deletion; DECISIONS
       * §19), or with `permanent` (admins) removes them at once, live or trashed. A user with orders
       * cannot be deleted (§2).
       */
      async deleteUser(
        actor: Principal | null,
        id: number,
        precondition?: Precondition<User>,
        options: { permanent?: boolean | undefined } = {},
      ): Promise<boolean> {
        const principal = requireSelfOrAdmin(actor, id);
        assertMayPurge(principal, options.permanent);
        const hasOrders = () => AppError.conflict('A user who has orders cannot be deleted');
        try {
          return await events.transaction(db, async (trx) => {
            const current = await repo.lockUserById(trx, id);
            if (!current) return options.permanent ? trashed.purge(trx, id, trashRecordOf(events, trx)) : false;
            precondition?.(toUser(current));
            if (await repo.userHasOrders(trx, id)) throw hasOrders();
            if (options.permanent) await repo.deleteUserById(trx, id);
            else await trash.moveToTrash(trx, 'user', id, actorOf(principal));
            await events.record(trx, 'user.deleted', { id });
            if (options.permanent) await events.record(trx, 'user.purged', { id });
            return true;
          });
        } catch (error) {
          // An order placed between the check and the delete still blocks it, through the foreign key.
          if (isForeignKeyViolation(error)) throw hasOrders();
          throw error;
        }
      },

      async verifyEmail(actor: Principal | null, id: number): Promise<User> {
        requireAdmin(actor);
        return setFlag(id, { email_verified: true });
      },

      async promoteToAdmin(actor: Principal | null, id: number): Promise<User> {
        requireAdmin(actor);
        return setFlag(id, { role: 'admin' });
      },
    },
    usersBatchTarget,
  );

  /** Idempotent admin actions: setting a flag that is already set changes nothing, not even updatedAt. */
  async function setFlag(id: number, changes: { email_verified?: boolean; role?: 'admin' }): Promise<User> {
    const current = await repo.findUserById(db, id);
    if (!current) throw notFound(id);
    const unchanged =
      (changes.email_verified === undefined || Boolean(current.email_verified) === changes.email_verified) &&
      (changes.role === undefined || current.role === changes.role);
    if (unchanged) return toUser(current);
    const row = await events.recordWith(
      db,
      'user.updated',
      (trx) => repo.updateUserById(trx, id, { ...changes, updated_at: now() }),
      toUser,
    );
    return toUser(row ?? current);
  }
}

export type UsersService = ReturnType<typeof createUsersService>;
