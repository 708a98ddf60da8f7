import { hashPassword } from '../../core/access/passwords.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isUniqueViolation } from '../../core/db/db-errors.ts';
import { adminExists, findUserByEmail, insertUser, updateUserById } from './users.repository.ts';

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
