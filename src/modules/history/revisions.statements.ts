import type { Insertable } from 'kysely';
import { anyTable } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { shapedStatement, type BoundParams } from '../../core/db/statement-cache.ts';
import type { RevisionsTable } from './revisions.table.ts';

/**
 * The revision every write of a user, post, comment or product adds (DECISIONS §19), compiled once per
 * column list (core/db/statement-cache.ts) instead of built and compiled by Kysely on every write.
 */
const revisionInsert = shapedStatement({
  build: (db: Db, _shape: null, row: BoundParams<Record<string, unknown>>) =>
    anyTable(db).insertInto('revisions').values(row),
});

export async function runRevisionInsert(trx: Db, row: Insertable<RevisionsTable>): Promise<void> {
  await readRows(trx, revisionInsert(trx, null, row as Record<string, unknown>));
}
