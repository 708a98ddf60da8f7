import { sql, type Kysely } from 'kysely';

/**
 * Indexes behind a post's comments filtered or sorted (comments.query.ts), beside `(post_id, id)` of
 * migration 0001: an author's comments on the post, and the post's comments by creation time.
 */
const INDEXES = [
  { name: 'comments_post_author_idx', columns: ['post_id', 'author_id', 'id'] },
  { name: 'comments_post_created_at_idx', columns: ['post_id', 'created_at', 'id'] },
] as const;

export const commentsMigrations = {
  '0010-comments-list-queries': {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const { name, columns } of INDEXES) {
        await db.schema
          .createIndex(name)
          .on('comments')
          .columns([...columns])
          .execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const { name } of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
    },
  },
  /**
   * `sort=-authorId`: ties break by ascending id, so the order is (author_id desc, id asc), which
   * `(post_id, author_id, id)` read backwards does not give: each page sorted every comment of the
   * post's first authors (comments.list.plan.test.ts).
   */
  '0011-comments-author-desc': {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create index comments_post_author_desc_idx on comments (post_id, author_id desc, id)`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('comments_post_author_desc_idx').ifExists().execute();
    },
  },
};
