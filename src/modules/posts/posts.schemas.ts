import { Type, type Static } from 'typebox';
import { IdField, Named, Nullable, PageQuery } from '../../core/http/schemas.ts';
import { QueriedPagination, queriedPageOf } from '../../core/querying/list-page.ts';
import { COUNT_MODES } from '../../core/querying/list-grammar.ts';
import { listQueryParameters } from '../../core/querying/list-query-schema.ts';
import {
  embeddedProperty,
  embedMany,
  embedOne,
  includeParameter,
  includePaths,
} from '../../core/querying/embedding-schema.ts';
import { searchHitProperty, searchParameters, SuggestionProperty } from '../../core/search/search-results.ts';
import { NOT_BLANK } from '../../core/validation/ajv.ts';
import { EmbeddableComment } from '../comments/comments.representation.ts';
import { EmbeddableUser } from '../users/users.representation.ts';
import { TrashedListParameter, TrashedReadParameter, trashProperties } from '../history/trash.representation.ts';
import { EmbeddablePost, postProperties } from './posts.representation.ts';
import { POST_QUERY } from './posts.query.ts';
import { POST_SEARCH } from './posts.search.ts';

/** Field rules of DECISIONS §2, declared once: REST validates bodies with them and so does the service. */
export const PostTitle = Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK, examples: ['Hello, world'] });
export const PostContent = Type.String({
  minLength: 1,
  maxLength: 100_000,
  pattern: NOT_BLANK,
  examples: ['First post.'],
});

/** REST body of `POST /api/users/{id}/posts`: the author comes from the path, never from the body. */
export const CreatePostBody = Type.Object({ title: PostTitle, content: PostContent }, { additionalProperties: false });
export type CreatePostBody = Static<typeof CreatePostBody>;

/** The service's input, shared by REST and GraphQL's `CreatePostInput` (authorId as a number). */
export const CreatePostInput = Type.Object(
  { title: PostTitle, content: PostContent, authorId: IdField() },
  { additionalProperties: false },
);
export type CreatePostInput = Static<typeof CreatePostInput>;

/** `PUT /posts/{id}`: title and content, both required (DECISIONS §19). */
export const ReplacePostInput = Type.Object(
  { title: PostTitle, content: PostContent },
  { additionalProperties: false },
);
export type ReplacePostInput = Static<typeof ReplacePostInput>;

/** `PATCH /posts/{id}` and GraphQL's `updatePost`: the fields sent change; `{}` changes nothing. */
export const UpdatePostInput = Type.Object(
  { title: Type.Optional(PostTitle), content: Type.Optional(PostContent) },
  { additionalProperties: false },
);
export type UpdatePostInput = Static<typeof UpdatePostInput>;

/** `post.deleted`'s data. */
export const DeletedPostPayload = Named(
  'DeletedPost',
  Type.Object({ id: Type.Integer() }, { additionalProperties: false }),
);

/** What a post embeds (`include`): its author and its first comments, and their own relations. */
const POST_EMBEDS = {
  author: embedOne(EmbeddableUser, { posts: embedMany(EmbeddablePost) }),
  comments: embedMany(EmbeddableComment, { author: embedOne(EmbeddableUser), post: embedOne(EmbeddablePost) }),
};
export const PostInclude = includeParameter(includePaths(POST_EMBEDS));
export const PostReadQuery = Type.Object(PostInclude);
/** `GET /posts/{id}`: with `trashed=include`, a post in the trash too (DECISIONS §19). */
export const PostByIdQuery = Type.Object({ ...PostInclude, ...TrashedReadParameter });

export const PostView = Named(
  'Post',
  Type.Object({ ...postProperties, ...trashProperties, ...embeddedProperty(POST_EMBEDS) }),
);

export const PostPage = queriedPageOf(PostView, 'PostPage');

/** A user's posts: the seed's page and limit, the list's grammar (posts.query.ts) and `include`. */
export const UserPostsQuery = Type.Object({
  ...PageQuery,
  ...listQueryParameters(POST_QUERY),
  ...PostInclude,
  ...TrashedListParameter,
});

/** `GET /posts`: the seed's cursor and limit, and the list's grammar (no page: a cursor list). */
export const PostCursorQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ description: 'Page size, default 20, clamped between 1 and 100' })),
  ...listQueryParameters(POST_QUERY),
  cursor: Type.Optional(
    Type.String({
      maxLength: 2048,
      description:
        "Opaque cursor from a previous page's `nextCursor` (with the same filters and sort); absent for the first page",
    }),
  ),
  count: Type.Optional(
    Type.Enum([...COUNT_MODES], {
      description: `Adds \`pagination\`: with the exact total, an estimated one, exact up to COUNT_EXACT_LIMIT (default 10,000), or none. Without it, no pagination`,
    }),
  ),
  ...PostInclude,
  ...searchParameters(POST_SEARCH),
  ...TrashedListParameter,
});

/** An item of `GET /posts`: a post, and with `q` its score and highlights. */
const PostFeedItem = Named(
  'PostFeedItem',
  Type.Object({ ...PostView.properties, ...searchHitProperty(POST_SEARCH, 'PostSearchHit') }),
);

export const PostCursorList = Named(
  'PostFeed',
  Type.Object({
    data: Type.Array(PostFeedItem),
    ...SuggestionProperty,
    nextCursor: Nullable(Type.String({ description: 'Cursor of the next page, or null at the end' })),
    /** Present when the request sends `count`. */
    pagination: Type.Optional(QueriedPagination),
  }),
);
