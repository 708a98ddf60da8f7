import type { Db } from '../../core/db/database.ts';
import { jsonTextHoldingAny } from '../../core/db/like-pattern.ts';
import type { ErasedContent } from './erase.repository.ts';
import { scrubbedUserValue } from './erase-scrub.ts';

const CHUNK = 200;

/**
 * An erasure's part in the revisions (DECISIONS §19): the revisions of the erased user's posts and comments
 * are deleted, and in every remaining revision that may hold them (the user's own, and any whose state's
 * text holds their name or e-mail) their name and e-mail read `[erased]` and their age null.
 */
export async function scrubRevisions(
  trx: Db,
  userId: number,
  content: ErasedContent,
  personal: { texts: readonly string[]; email: string },
): Promise<void> {
  for (const [resource, ids] of [
    ['post', content.postIds],
    ['comment', content.commentIds],
  ] as const) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      await trx
        .deleteFrom('revisions')
        .where('resource', '=', resource)
        .where('item_id', 'in', ids.slice(i, i + CHUNK))
        .execute();
    }
  }
  const holding = await trx
    .selectFrom('revisions')
    .select(['id', 'state'])
    .where((eb) =>
      eb.or([
        eb.and([eb('resource', '=', 'user'), eb('item_id', '=', userId)]),
        jsonTextHoldingAny('state', personal.texts)(eb),
      ]),
    )
    .execute();
  for (const revision of holding) {
    const scrubbed = JSON.stringify(scrubbedUserValue(JSON.parse(revision.state), userId, [personal.email]));
    if (scrubbed !== revision.state) {
      await trx.updateTable('revisions').set({ state: scrubbed }).where('id', '=', revision.id).execute();
    }
  }
}
