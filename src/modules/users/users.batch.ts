import { writableFieldsOf, type BatchTarget } from '../../core/bulk/batch.ts';
import type { Precondition } from '../../core/precondition.ts';
import type { Principal } from '../../core/access/principal.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { User } from './user.ts';
import { CreateUserInput, UpdateUserInput } from './users.schemas.ts';

/** What a batch needs of the users service: its single writes and the e-mail lookup. */
interface UserWrites {
  createUser(actor: Principal | null, raw: unknown): Promise<User>;
  updateUser(actor: Principal | null, id: number, raw: unknown, precondition?: Precondition<User>): Promise<User>;
  deleteUser(actor: Principal | null, id: number, precondition?: Precondition<User>): Promise<boolean>;
  findUserByEmail(email: string): Promise<User | undefined>;
}

const checkCreate = createChecker(CreateUserInput);
const checkUpdate = createChecker(UpdateUserInput);

/** Users in a batch (DECISIONS §18): admins only (sign-up stays single); upserts match on `email`. */
export function usersBatchTarget(users: UserWrites): BatchTarget<User> {
  return {
    resource: 'users',
    ops: new Set(['create', 'update', 'upsert', 'delete']),
    adminOnly: true,
    fields: writableFieldsOf(CreateUserInput, UpdateUserInput),
    checkCreate: (data) => void checkCreate(data),
    checkUpdate: (data) => void checkUpdate(data),
    createBody: (_actor, data) => data,
    naturalKey: {
      field: 'email',
      // As the service stores it: the same e-mail in another case is the same user.
      normalize: (email) => email.toLowerCase(),
      find: (email) => users.findUserByEmail(email),
    },
    create: (actor, data) => users.createUser(actor, data),
    update: (actor, id, data, precondition) => users.updateUser(actor, id, data, precondition),
    remove: (actor, id, precondition) => users.deleteUser(actor, id, precondition),
    idOf: (user) => user.id,
  };
}
