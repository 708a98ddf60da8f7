import type { Db } from '../db/database.ts';

/**
 * The development secret a PostgreSQL database keeps (DECISIONS §1): `candidate` becomes it unless another
 * process stored one first, whose secret wins, so every process of one database signs alike. The insert
 * that does nothing on a conflict settles a race between processes starting together without a lock.
 */
export async function keepDevelopmentSecret(db: Db, candidate: string): Promise<string> {
  await db
    .insertInto('development_secret')
    .values({ id: 1, secret: candidate })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
  const row = await db.selectFrom('development_secret').select('secret').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.secret;
}
