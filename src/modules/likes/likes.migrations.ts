import type { Kysely } from 'kysely';

/**
 * A comment's likes in their default order (oldest first, ties by user): without it, each page of a
 * much-liked comment sorted all its likes.
 */
export const likesMigrations = {
  '0010-likes-list-queries': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('comment_likes_comment_created_at_idx')
        .on('comment_likes')
        .columns(['comment_id', 'created_at', 'user_id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('comment_likes_comment_created_at_idx').ifExists().execute();
    },
  },
};
