import { Type } from 'typebox';
import { hashPassword } from '../../core/access/passwords.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isUniqueViolation } from '../../core/db/db-errors.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { adminExists, findUserByEmail, insertUser, updateUserById } from './users.repository.ts';
import { Password } from './users.schemas.ts';
import type { UsersService } from './users.service.ts';

/**
 * Makes sure an administrator exists (start-up, src/bootstrap.ts): when none does, the account
 * with `email` is promoted and given `password`, or created with them. Returns whether this call
 * created or promoted one (false: there was one already, or a concurrent start made it).
 */
export async function ensureAdministrator(db: Db, email: string, password: string): Promise<boolean> {
  if (await adminExists(db)) return false;
  const passwordHash = await hashPassword(password);
  const existing = await findUserByEmail(db, email);
  const timestamp = now();
  if (existing) {
    await updateUserById(db, existing.id, { role: 'admin', password_hash: passwordHash, updated_at: timestamp });
  } else {
    try {
      await insertUser(db, {
        name: 'Administrator',
        email,
        age: null,
        role: 'admin',
        status: 'active',
        email_verified: true,
        password_hash: passwordHash,
        created_at: timestamp,
        updated_at: timestamp,
      });
    } catch (error) {
      // Instances starting together on a new database race to create it; one wins and that is enough.
      if (isUniqueViolation(error) && (await adminExists(db))) return false;
      throw error;
    }
  }
  return true;
}

const checkNewPassword = createChecker<{ password: string }>(
  Type.Object({ password: Password }, { additionalProperties: false }),
);

/**
 * Sets the password of the user with `email` (the CLI's `set-password`: the way back into a database
 * whose printed admin password is lost), through the users service as that user would change it
 * (`PATCH` with `password`): the API's password rule and hash, `updatedAt`, and the `user.updated`
 * event in the same transaction (DECISIONS §10: any change to a user). Returns false when no user has
 * `email`. Throws 422 VALIDATION_ERROR for a password the API would refuse.
 */
export async function setPasswordByEmail(
  db: Db,
  users: Pick<UsersService, 'updateUser'>,
  email: string,
  password: string,
): Promise<boolean> {
  checkNewPassword({ password });
  const user = await findUserByEmail(db, email.trim().toLowerCase());
  if (!user) return false;
  await users.updateUser({ userId: user.id, role: 'user' }, user.id, { password });
  return true;
}
