import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

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
  /**
   * PostgreSQL: a comment's likes by user (`sort=userId`) from an index that holds every column, as
   * the creation-time index does. With only the primary key, the plan made once for any comment
   * (likely ~40 likes) preferred reading the creation-time index whole and sorting: 20,000 entries
   * for a much-liked comment (likes.list.plan.test.ts). SQLite plans each statement for its values.
   */
  '0011-likes-by-user': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`create index comment_likes_comment_user_idx on comment_likes (comment_id, user_id) include (created_at)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('comment_likes_comment_user_idx').ifExists().execute();
    },
  },
};
