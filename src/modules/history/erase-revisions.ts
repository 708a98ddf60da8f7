import { anyTable } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';
import type { ErasedContent } from './erase.repository.ts';
import { tableExists } from './erase.repository.ts';
import { scrubbedUserValue } from './erase-scrub.ts';

/**
 * An erasure's part in the revisions (DECISIONS §19), against the table the revisions branch adds
 * (`revisions(id, resource, item_id, op, at, actor_type, actor_id, request_id, state)`, migration
 * `0025-revisions`): the revisions of the erased user's posts and comments are deleted, and in the user's
 * own revisions their name and e-mail read `[erased]` and their age null.
 *
 * INTEGRATION: written before that table exists on this branch, hence the `tableExists` check (to delete
 * once both branches are merged); untested until then.
 */
export async function scrubRevisions(trx: Db, userId: number, content: ErasedContent): Promise<void> {
  if (!(await tableExists(trx, 'revisions'))) return;
  const t = anyTable(trx);
  for (const [resource, ids] of [
    ['post', content.postIds],
    ['comment', content.commentIds],
  ] as const) {
    for (let i = 0; i < ids.length; i += 200) {
      await t
        .deleteFrom('revisions')
        .where('resource', '=', resource)
        .where('item_id', 'in', ids.slice(i, i + 200))
        .execute();
    }
  }
  const own = await t
    .selectFrom('revisions')
    .select(['id', 'state'])
    .where('resource', '=', 'user')
    .where('item_id', '=', userId)
    .execute();
  for (const revision of own) {
    const state = JSON.parse(String(revision.state)) as unknown;
    const scrubbed = JSON.stringify(scrubbedUserValue(state, userId, []));
    if (scrubbed !== revision.state) {
      await t.updateTable('revisions').set({ state: scrubbed }).where('id', '=', revision.id).execute();
    }
  }
}
