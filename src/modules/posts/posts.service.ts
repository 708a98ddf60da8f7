/**
 * Posts: business rules, permissions and transactions, used by REST and GraphQL alike.
 *
 * Stable API (GraphQL resolvers call these; keep the names and shapes):
 *   getPost(actor: Principal | null, id: number): Promise<Post>                      401 unsigned, 404 NOT_FOUND
 *   listPosts(actor, { authorId?, limit?, offset?, parameters?, sort? }): Promise<Post[]>
 *       newest first unless sorted, limit default 20, max 100; `parameters`/`sort`: GraphQL's filter and orderBy
 *   queryPosts(actor, { authorId?, limit?, offset?, parameters?, sort?, cursor? }): Promise<QueriedPage<Post>>
 *       the same with the next page's cursor (GraphQL's postsConnection); 422s name GraphQL's arguments
 *   createPost(actor, input: unknown): Promise<Post>                                 input {title, content, authorId: number};
 *                                                                                     422 / 403 (not the author nor admin) / 404 (no such author)
 *   findPostsByIds(ids: readonly number[], fields?): Promise<Post[]>                 any order, missing ids left out
 *   findPostsByAuthorIds(authorIds, { limit?, offset? }, fields?): Promise<Map<number, Post[]>>  one query; newest first per author
 *   (fields: the GraphQL fields selected; only their columns and the keys are read)
 * REST only (both by the list's grammar, posts.query.ts: filters, sort, count and cursor):
 *   listUserPosts(actor, userId, { page?, limit?, sort?, count?, cursor?, ...filters }): Promise<QueriedPage<Post>>
 *       404 when the user does not exist
 *   getUserPost(actor, userId, postId): Promise<Post>                                  404 when the post is not that user's
 *   listPostsByCursor(actor, { cursor?, limit?, sort?, count?, ...filters }): Promise<QueriedPage<Post>>
 *       `GET /posts`: no total unless `count` asks; the seed's `{"id": N}` cursor still read
 */
import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import { columnsFor } from '../../core/db/columns.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { pageWindow, type PageRequest } from '../../core/pagination.ts';
import { asGraphqlArguments } from '../../core/querying/list-graphql.ts';
import type { QueriedPage } from '../../core/querying/list-page.ts';
import { DEFAULT_LIST_SETTINGS, type ListSettings } from '../../core/querying/list-grammar.ts';
import { listRequestOf, parseListQuery, type ListOptions } from '../../core/querying/list-query-parse.ts';
import { readSearchParameters, scoreOf, type SearchResults } from '../../core/search/search-results.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { findUserById } from '../users/users.reads.ts';
import { withSeedCursorRead } from './post-cursor.ts';
import { POST_COLUMN_OF, toPost, type Post } from './post.ts';
import type { PostRow } from './posts.table.ts';
import * as repo from './posts.repository.ts';
import { POST_QUERY } from './posts.query.ts';
import { POST_SEARCH } from './posts.search.ts';
import { CreatePostInput } from './posts.schemas.ts';
import { createTrash, type Trash } from '../history/trash.ts';
import { createPostChanges, type PostEvents } from './posts.changes.ts';

/** Every post list: default 20, at most 100 (DECISIONS §3 and §6). */
export const POST_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };

export interface ListPostsOptions extends PageRequest {
  authorId?: number | undefined;
  /** GraphQL's `filter` as the REST list's parameters (graphqlListParameters). */
  parameters?: Readonly<Record<string, unknown>> | undefined;
  /** GraphQL's `orderBy` as the REST list's `sort`. */
  sort?: string | undefined;
  /** A connection's `after`: the `nextCursor` of the page before. */
  cursor?: string | undefined;
  /** GraphQL's `search`: REST's `q` (DECISIONS §14). */
  search?: string | undefined;
  /** With `search`: REST's `highlight`, the fields whose marked text the items carry (`Post.highlights`). */
  highlight?: string | undefined;
}

/** Read whatever fields are asked: `Post.author` and `Post.comments` follow them. */
const POST_KEYS = ['id', 'author_id'] as const;

const checkCreate = createChecker<CreatePostInput>(CreatePostInput);
const asker = (actor: Principal | null, lists: ListSettings) => ({ admin: isAdmin(actor), ...lists });
const toPosts = (page: QueriedPage<PostRow>): QueriedPage<Post> => ({ ...page, items: page.items.map(toPost) });
const postNotFound = (id: number) => AppError.notFound(`Post ${id}`);
const userNotFound = (id: number) => AppError.notFound(`User ${id}`);

export type { PostEvents, PostTarget } from './posts.changes.ts';

export function createPostsService(
  db: Db,
  events: EventRecorder<PostEvents> = noEvents(),
  lists: ListSettings = DEFAULT_LIST_SETTINGS,
  trash: Trash = createTrash({ retentionDays: 30 }),
) {
  async function assertUserExists(userId: number): Promise<void> {
    if (!(await findUserById(db, userId))) throw userNotFound(userId);
  }

  /** GraphQL's posts lists: the REST list's grammar, checks and SQL, without a total. */
  async function queryPosts(actor: Principal | null, options: ListPostsOptions = {}): Promise<QueriedPage<Post>> {
    requireSignedIn(actor);
    const { authorId, parameters, sort, cursor } = options;
    const filters = { ...parameters, ...(authorId === undefined ? {} : { authorId }) };
    try {
      const { search, highlight } = readSearchParameters(POST_SEARCH, options.search, options.highlight);
      const query = parseListQuery(
        POST_QUERY,
        { sort, cursor, count: 'none', parameters: filters, search },
        asker(actor, lists),
      );
      const page = await repo.readPostPage(db, query, pageWindow(options, POST_PAGE_RULES));
      if (!search) return toPosts(page);
      // A searched post carries its score and the highlights asked for, read in one statement for the
      // page (GraphQL's `Post.searchScore` and `Post.highlights`).
      const marked =
        highlight.length > 0 ? await repo.readPostSearchResults(db, query, page.items, highlight) : undefined;
      const items = page.items.map((row, i) => ({
        ...toPost(row),
        searchScore: scoreOf(row),
        ...(marked ? { highlights: marked.hits[i]?.highlights ?? {} } : {}),
      }));
      return { ...page, items };
    } catch (error) {
      throw asGraphqlArguments(error);
    }
  }

  return {
    ...createPostChanges(db, events, trash),

    async getPost(actor: Principal | null, id: number): Promise<Post> {
      requireSignedIn(actor);
      const row = await repo.findPostById(db, id);
      if (!row) throw postNotFound(id);
      return toPost(row);
    },

    async getUserPost(actor: Principal | null, userId: number, postId: number): Promise<Post> {
      requireSignedIn(actor);
      const row = await repo.findPostById(db, postId);
      if (!row || row.author_id !== userId) throw postNotFound(postId);
      return toPost(row);
    },

    async listPosts(actor: Principal | null, options: ListPostsOptions = {}): Promise<Post[]> {
      return (await queryPosts(actor, options)).items;
    },

    queryPosts,

    /** A user's posts by the list's grammar (posts.query.ts), newest first unless sorted: a page list. */
    async listUserPosts(actor: Principal | null, userId: number, options: ListOptions): Promise<QueriedPage<Post>> {
      requireSignedIn(actor);
      const query = parseListQuery(POST_QUERY, listRequestOf(options, { author_id: userId }), asker(actor, lists));
      await assertUserExists(userId);
      return toPosts(await repo.readPostPage(db, query, pageWindow(options, POST_PAGE_RULES)));
    },

    /**
     * `GET /posts`, the seed's cursor list (ids descending, one row more read to know whether a next
     * page exists) with the list's grammar: no total unless `count` asks for one, and only cursors
     * (no page or offset).
     */
    async listPostsByCursor(
      actor: Principal | null,
      options: ListOptions & { q?: string | undefined; highlight?: string | undefined },
    ): Promise<QueriedPage<Post> & { search?: SearchResults }> {
      requireSignedIn(actor);
      const { search, highlight } = readSearchParameters(POST_SEARCH, options.q, options.highlight);
      const request = { ...listRequestOf({ ...options, count: options.count ?? 'none' }), search };
      const query = withSeedCursorRead(parseListQuery(POST_QUERY, request, asker(actor, lists)));
      const page = await repo.readPostPage(db, query, pageWindow({ limit: options.limit }, POST_PAGE_RULES));
      const searched = await repo.readPostSearchResults(db, query, page.items, highlight);
      return { ...toPosts(page), ...(searched ? { search: searched } : {}) };
    },

    /** The author or an admin creates a post for that author; input is checked here so GraphQL gets the same rules. */
    async createPost(actor: Principal | null, raw: unknown): Promise<Post> {
      const principal = requireSignedIn(actor);
      const input = checkCreate(raw);
      if (!isAdmin(principal) && principal.userId !== input.authorId) {
        throw AppError.forbidden('You may only create posts as yourself');
      }
      const timestamp = now();
      try {
        const row = await events.recordInsert(
          db,
          'post.created',
          repo.postInsert,
          {
            author_id: input.authorId,
            title: input.title,
            content: input.content,
            created_at: timestamp,
            updated_at: timestamp,
          },
          toPost,
        );
        return toPost(row);
      } catch (error) {
        // No such author (the foreign key decides it, in the same statement: no read before the write).
        if (isForeignKeyViolation(error)) throw userNotFound(input.authorId);
        throw error;
      }
    },

    /** With `fields` (GraphQL's selection), only their columns and the keys are read. */
    async findPostsByIds(ids: readonly number[], fields?: Iterable<string>): Promise<Post[]> {
      return (await repo.findPostsByIds(db, [...new Set(ids)], columnsFor(fields, POST_COLUMN_OF, POST_KEYS))).map(
        toPost,
      );
    },

    /** Batch loader for `User.posts`: one query whatever the number of authors; every author gets an entry. */
    async findPostsByAuthorIds(
      authorIds: readonly number[],
      page: { limit?: number | undefined; offset?: number | undefined } = {},
      fields?: Iterable<string>,
    ): Promise<Map<number, Post[]>> {
      const unique = [...new Set(authorIds)];
      const { limit, offset } = pageWindow({ limit: page.limit, offset: page.offset ?? 0 }, POST_PAGE_RULES);
      const rows = await repo.listPostsOfAuthors(
        db,
        unique,
        { limit, offset },
        columnsFor(fields, POST_COLUMN_OF, POST_KEYS),
      );
      const byAuthor = new Map<number, Post[]>(unique.map((id) => [id, []]));
      for (const row of rows) byAuthor.get(row.author_id)?.push(toPost(row));
      return byAuthor;
    },
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
