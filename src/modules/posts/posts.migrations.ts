import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';
import { fullTextMigration, wordsFilledByWriterMigration } from '../../core/search/full-text.migration.ts';
import { postCountsMigration } from './posts.counters.migration.ts';
import { POST_SEARCH } from './posts.search.ts';

/**
 * Indexes behind the posts lists' filters and sorts (posts.query.ts) that migration 0001 has not:
 * `(author_id, id)` is there (an author's posts newest first, and the `authorId` filter and sort).
 *
 * - `(title, id)` and `(created_at, id)`: `GET /posts` filtered or sorted by title or creation time
 *   (read forwards or backwards: ties follow the first key's direction).
 * - `(author_id, created_at, id)` and `(author_id, title, id)`: the same within one author (a user's
 *   posts).
 * - PostgreSQL with `pg_trgm` (as the users' names): trigram indexes on title and content for
 *   `title[contains]` and `search` (ILIKE '%text%'; `search` is a bitmap OR of the two). SQLite
 *   scans for `contains` (its LIKE cannot use an index for '%text%'; docs/QUERYING.md).
 */
const INDEXES = [
  { name: 'posts_title_idx', columns: ['title', 'id'] },
  { name: 'posts_created_at_idx', columns: ['created_at', 'id'] },
  { name: 'posts_author_created_at_idx', columns: ['author_id', 'created_at', 'id'] },
  { name: 'posts_author_title_idx', columns: ['author_id', 'title', 'id'] },
] as const;

const TRIGRAM_INDEXES = ['posts_title_trgm_idx', 'posts_content_trgm_idx'];

export const postsMigrations = {
  '0010-posts-list-queries': {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const { name, columns } of INDEXES) {
        await db.schema
          .createIndex(name)
          .on('posts')
          .columns([...columns])
          .execute();
      }
      if (dialectOf(db) !== 'postgres') return;
      const { rows } = await sql<{ ok: boolean }>`
        select exists (select 1 from pg_extension where extname = 'pg_trgm')
            or (exists (select 1 from pg_available_extensions where name = 'pg_trgm')
                and has_database_privilege(current_database(), 'CREATE')) as ok`.execute(db);
      if (rows[0]?.ok) {
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`create index posts_title_trgm_idx on posts using gin (title gin_trgm_ops)`.execute(db);
        await sql`create index posts_content_trgm_idx on posts using gin (content gin_trgm_ops)`.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const name of [...TRIGRAM_INDEXES, ...INDEXES.map((index) => index.name)]) {
        await db.schema.dropIndex(name).ifExists().execute();
      }
    },
  },
  '0010-posts-post-counts': postCountsMigration,
  /**
   * 1,000 histogram buckets for the text that `title[contains]` and `search` match (as users'
   * migration 0011 for names and e-mails): with 100, PostgreSQL's estimate of a rare text swung with
   * ANALYZE's sample, and a high estimate walks the id index past every row instead of the trigram index.
   */
  '0011-posts-text-statistics': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table posts alter column title set statistics 1000, alter column content set statistics 1000`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table posts alter column title set statistics -1, alter column content set statistics -1`.execute(
        db,
      );
    },
  },
  /**
   * PostgreSQL: ANALYZE of the columns 0011 gave 1,000 buckets. A statistics target takes effect at the
   * next ANALYZE, which on a freshly seeded database (the seed analyzes before the modules migrate)
   * autovacuum runs only once a tenth of the table has changed: until then the estimates stayed 100
   * buckets'.
   */
  '0012-posts-text-statistics-analyzed': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`analyze posts (title, content)`.execute(db);
    },
    async down(): Promise<void> {},
  },
  /**
   * PostgreSQL: 200 histogram buckets for `content` (titles keep 0011's 1,000), analyzed at once. The
   * planner matches a `search` pattern against every histogram value of a column, content values are
   * long texts, and every `search` is planned for its value (list-sql.ts): with 1,000 of them planning
   * cost more than the page itself. The trade: a word seen once in the sample is estimated as five
   * times more common than with 1,000 buckets.
   */
  '0013-posts-content-statistics': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table posts alter column content set statistics 200`.execute(db);
      await sql`analyze posts (content)`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table posts alter column content set statistics 1000`.execute(db);
    },
  },
  /** Full-text search of title and content (posts.search.ts, core/search). */
  '0016-posts-search': fullTextMigration(POST_SEARCH),
  '0023-posts-search-words-by-seed': wordsFilledByWriterMigration(POST_SEARCH),
};
