import type { Db } from '../../core/db/database.ts';
import type { Rewrite, StoredValues } from '../events/stored-copies.ts';
import * as repo from './erase.repository.ts';
import { scrubRevisions } from './erase-revisions.ts';
import { scrubbedUserValue } from './erase-scrub.ts';

export { ERASED } from './erase-scrub.ts';

/**
 * What an erasure (DECISIONS §19, `POST /api/v2/users/{id}/erase`) does beyond the user's own row, in
 * the users service's transaction: their posts, comments and likes removed for good (live, and in the
 * trash, their own deletion included), the revisions of those deleted, and in every stored event (the
 * outbox's, and the webhook deliveries' saved payloads: rewritten by the events module, `scrubStored`) and
 * remaining revision their name and e-mail read `[erased]` and their age null.
 */

/** The user's row as the trash holds it, when they are in the trash; undefined otherwise. */
export async function trashedUserRow(
  db: Db,
  userId: number,
): Promise<{ deletionId: string; row: Record<string, unknown> } | undefined> {
  const found = await repo.findTrashedUser(db, userId);
  return found && { deletionId: found.deletion_id, row: JSON.parse(found.row_data) as Record<string, unknown> };
}

export async function eraseTraces(
  trx: Db,
  userId: number,
  personal: { name: string; email: string },
  scrubStored: (values: StoredValues, rewrite: Rewrite) => Promise<void>,
  trashedDeletionId?: string,
): Promise<void> {
  const live = await repo.removeLiveContent(trx, userId);
  const trashed = await repo.removeTrashedContent(trx, userId, trashedDeletionId);
  const content = {
    postIds: [...live.postIds, ...trashed.postIds],
    commentIds: [...live.commentIds, ...trashed.commentIds],
  };
  const texts = [personal.email, personal.name].filter((text) => text.length > 0);
  // The stored events and their copies (the webhook deliveries' payloads), by the events module.
  await scrubStored({ resource: `user:${userId}`, texts }, (json) =>
    JSON.stringify(scrubbedUserValue(JSON.parse(json), userId, [personal.email])),
  );
  await scrubRevisions(trx, userId, content, { texts, email: personal.email });
}
