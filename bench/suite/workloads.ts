import { adminTokenOf } from './alternate.ts';
import type { LoadRequest } from './load.ts';

/** What every workload needs to know about the running server and the seeded data. */
export interface WorkloadContext {
  baseUrl: string;
  token: string;
  /** The user the token belongs to (writes of W8 are theirs). */
  tokenUserId: number;
  users: number;
  products: number;
  category: string;
}

/**
 * The context of the standard data set (`seedStandardData`: 1,000 users, 10,000 products) for a service at
 * `baseUrl`, with `token` of user `tokenUserId` (the administrator, 1, unless given).
 */
export function standardContext(baseUrl: string, token: string, tokenUserId = 1): WorkloadContext {
  return { baseUrl, token, tokenUserId, users: 1000, products: 10000, category: 'category-07' };
}

export interface PreparedWorkload {
  requests: LoadRequest[];
  okStatus?: (status: number) => boolean;
}

export interface Workload {
  id: string;
  title: string;
  /** Builds the request stream; may read from the server first (cursors, ETags). */
  prepare(context: WorkloadContext): Promise<PreparedWorkload>;
  /** Sends one request of the workload and throws unless its answer is right. */
  check(context: WorkloadContext): Promise<void>;
}

/** A small deterministic PRNG (mulberry32): the same ids in every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(9);
const randomId = (max: number) => 1 + Math.floor(random() * max);

/** A unique suffix per run, so writes never collide with an earlier run's rows. */
const RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let counter = 0;
const unique = () => `${RUN}-${(counter += 1)}`;

const json = { 'content-type': 'application/json' };
const auth = (context: WorkloadContext) => ({ authorization: `Bearer ${context.token}` });

async function call(
  context: WorkloadContext,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown; etag: string | null }> {
  const response = await fetch(context.baseUrl + path, {
    ...init,
    headers: { ...auth(context), ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, etag: response.headers.get('etag') };
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${message}`);
}

const usersQuery = '{ users(limit: 10) { id name posts { id title comments { id text author { id name } } } } }';
const userQuery = 'query($id: ID!) { user(id: $id) { id name email } }';
const createPostMutation = 'mutation($input: CreatePostInput!) { createPost(input: $input) { id title } }';
const productsListPath = (category: string) =>
  `/api/products?category=${category}&min_price=100&max_price=500&sort=-price&limit=20&page=2`;

const graphql = (context: WorkloadContext, query: string, variables?: Record<string, unknown>) =>
  call(context, '/graphql', { method: 'POST', headers: json, body: JSON.stringify({ query, variables }) });

const W1: Workload = {
  id: 'W1',
  title: 'GET /api/users/{random id}',
  async prepare(context) {
    return {
      requests: [
        {
          method: 'GET',
          headers: auth(context),
          setupRequest: (r) => ({ ...r, path: `/api/users/${randomId(context.users)}` }),
        },
      ],
    };
  },
  async check(context) {
    const { status, body } = await call(context, '/api/users/7');
    expect(status === 200 && (body as { id: number }).id === 7, `GET /api/users/7 answered ${status}`);
  },
};

const W2: Workload = {
  id: 'W2',
  title: 'GET /api/products?category&price range&sort=-price&page=2',
  async prepare(context) {
    return { requests: [{ method: 'GET', path: productsListPath(context.category), headers: auth(context) }] };
  },
  async check(context) {
    const { status, body } = await call(context, productsListPath(context.category));
    const items = (body as { data: { price: number; category: string }[] }).data;
    expect(status === 200 && items.length === 20, `products page 2 has ${items?.length} items (status ${status})`);
    expect(
      items.every((p, i) => p.category === context.category && (i === 0 || p.price <= items[i - 1]!.price)),
      'products are of the category, by price descending',
    );
  },
};

const W3: Workload = {
  id: 'W3',
  title: 'GraphQL users(limit 10) → posts → comments → author',
  async prepare(context) {
    return {
      requests: [
        {
          method: 'POST',
          path: '/graphql',
          headers: { ...json, ...auth(context) },
          body: JSON.stringify({ query: usersQuery }),
        },
      ],
    };
  },
  async check(context) {
    const { status, body } = await graphql(context, usersQuery);
    type Users = { data: { users: { posts: { comments: { author: { name: string } }[] }[] }[] } };
    const users = (body as Users).data?.users ?? [];
    const posts = users.flatMap((u) => u.posts);
    const comments = posts.flatMap((p) => p.comments);
    expect(
      status === 200 && users.length === 10 && posts.length === 100 && comments.length === 500,
      `nested query gave ${users.length}/${posts.length}/${comments.length}`,
    );
    expect(
      comments.every((c) => typeof c.author?.name === 'string'),
      'every comment has its author',
    );
  },
};

const W4: Workload = {
  id: 'W4',
  title: 'GraphQL user(id: random) { id name email }',
  async prepare(context) {
    return {
      requests: [
        {
          method: 'POST',
          path: '/graphql',
          headers: { ...json, ...auth(context) },
          setupRequest: (r) => ({
            ...r,
            body: JSON.stringify({ query: userQuery, variables: { id: String(randomId(context.users)) } }),
          }),
        },
      ],
    };
  },
  async check(context) {
    const { status, body } = await graphql(context, userQuery, { id: '7' });
    const user = (body as { data: { user: { id: string; email: string } } }).data?.user;
    // Another user's email is "" unless the caller is an admin (DECISIONS §5); the field is still read.
    expect(
      status === 200 && user?.id === '7' && typeof user.email === 'string',
      `user(id: 7) answered ${status} ${JSON.stringify(body)}`,
    );
  },
};

const W5: Workload = {
  id: 'W5',
  title: 'POST /api/users (unique emails)',
  async prepare(context) {
    const request: LoadRequest = { method: 'POST', path: '/api/users', headers: { ...json, ...auth(context) } };
    return {
      requests: [
        {
          ...request,
          setupRequest: (r) => ({
            ...r,
            body: JSON.stringify({ name: 'Bench User', email: `bench-${unique()}@example.com` }),
          }),
        },
      ],
    };
  },
  async check(context) {
    const email = `bench-${unique()}@example.com`;
    const { status, body } = await call(context, '/api/users', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Bench User', email }),
    });
    expect(status === 201 && (body as { email: string }).email === email, `sign-up answered ${status}`);
  },
};

/** Walks the posts list from the first page along `nextCursor` (up to `pages` pages). */
async function postCursorPaths(context: WorkloadContext, pages: number): Promise<string[]> {
  const paths = ['/api/posts'];
  let path = '/api/posts';
  while (paths.length < pages) {
    const { body } = await call(context, path);
    const next = (body as { nextCursor: string | null }).nextCursor;
    if (!next) break;
    path = `/api/posts?cursor=${encodeURIComponent(next)}`;
    paths.push(path);
  }
  return paths;
}

const W6: Workload = {
  id: 'W6',
  title: 'GET /api/posts walking cursors',
  async prepare(context) {
    const paths = await postCursorPaths(context, 200);
    let next = 0;
    return {
      requests: [
        {
          method: 'GET',
          headers: auth(context),
          setupRequest: (r) => ({ ...r, path: paths[(next += 1) % paths.length]! }),
        },
      ],
    };
  },
  async check(context) {
    const first = await call(context, '/api/posts');
    const page = first.body as { data: { id: number }[]; nextCursor: string };
    expect(
      first.status === 200 && page.data.length === 20 && typeof page.nextCursor === 'string',
      'first posts page with a cursor',
    );
    const second = await call(context, `/api/posts?cursor=${encodeURIComponent(page.nextCursor)}`);
    const ids = (second.body as { data: { id: number }[] }).data.map((p) => p.id);
    expect(
      second.status === 200 && ids.length === 20 && !ids.some((id) => page.data.some((p) => p.id === id)),
      'second page continues the first',
    );
  },
};

const W7: Workload = {
  id: 'W7',
  title: 'GET /api/products/{id} with matching If-None-Match (304)',
  async prepare(context) {
    const tags: [string, string][] = [];
    for (let i = 0; i < 100; i += 1) {
      const path = `/api/products/${randomId(context.products)}`;
      tags.push([path, (await call(context, path)).etag!]);
    }
    return {
      requests: [
        {
          method: 'GET',
          setupRequest: (r) => {
            const [path, etag] = tags[Math.floor(random() * tags.length)]!;
            return { ...r, path, headers: { ...auth(context), 'if-none-match': etag } };
          },
        },
      ],
      okStatus: (status) => status === 304,
    };
  },
  async check(context) {
    const first = await call(context, '/api/products/7');
    expect(first.status === 200 && first.etag, 'product 7 has an ETag');
    const second = await fetch(`${context.baseUrl}/api/products/7`, {
      headers: { ...auth(context), 'if-none-match': first.etag },
    });
    expect(second.status === 304 && (await second.text()) === '', `If-None-Match answered ${second.status}`);
  },
};

/** W8: per ten requests, eight reads (REST and GraphQL) and two writes (a REST post, a GraphQL post). */
function mixedRequests(context: WorkloadContext): LoadRequest[] {
  const headers = { ...json, ...auth(context) };
  const get = (path: () => string): LoadRequest => ({
    method: 'GET',
    headers: auth(context),
    setupRequest: (r) => ({ ...r, path: path() }),
  });
  const userRead: LoadRequest = {
    method: 'POST',
    path: '/graphql',
    headers,
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({ query: userQuery, variables: { id: String(randomId(context.users)) } }),
    }),
  };
  const restWrite: LoadRequest = {
    method: 'POST',
    path: `/api/users/${context.tokenUserId}/posts`,
    headers,
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({ title: `Bench post ${unique()}`, content: 'Written under load.' }),
    }),
  };
  const graphqlWrite: LoadRequest = {
    method: 'POST',
    path: '/graphql',
    headers,
    setupRequest: (r) => ({
      ...r,
      body: JSON.stringify({
        query: createPostMutation,
        variables: {
          input: {
            title: `Bench post ${unique()}`,
            content: 'Written under load.',
            authorId: String(context.tokenUserId),
          },
        },
      }),
    }),
  };
  return [
    get(() => `/api/users/${randomId(context.users)}`),
    get(() => `/api/products/${randomId(context.products)}`),
    userRead,
    restWrite,
    get(() => `/api/users/${randomId(context.users)}/posts?limit=10`),
    get(() => productsListPath(context.category)),
    { ...userRead },
    get(() => `/api/posts/${randomId(context.users * 10)}`),
    graphqlWrite,
    get(() => `/api/users/${randomId(context.users)}`),
  ];
}

const W8: Workload = {
  id: 'W8',
  title: 'mix: 80% reads / 20% writes, REST and GraphQL',
  async prepare(context) {
    return { requests: mixedRequests(context) };
  },
  async check(context) {
    const rest = await call(context, `/api/users/${context.tokenUserId}/posts`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title: 'Check', content: 'Check.' }),
    });
    expect(rest.status === 201, `REST post answered ${rest.status}`);
    const input = { title: 'Check', content: 'Check.', authorId: String(context.tokenUserId) };
    const { status, body } = await graphql(context, createPostMutation, { input });
    expect(
      status === 200 && (body as { data?: { createPost?: { id: string } } }).data?.createPost?.id,
      `createPost answered ${JSON.stringify(body)}`,
    );
  },
};

export const WORKLOADS: Workload[] = [W1, W2, W3, W4, W5, W6, W7, W8];

/**
 * W9 (issue 72's line, not in the standard run): an administrator changes a product's price, the write a
 * revision is added to (DECISIONS §19). Random products of the standard data set, each answer a new price.
 */
const W9: Workload = {
  id: 'W9',
  title: 'PATCH /api/v2/products/{id} (a new price, an administrator)',
  async prepare(context) {
    const token = await adminTokenOf(context.baseUrl);
    let price = 1;
    return {
      requests: [
        {
          method: 'PATCH',
          headers: { ...json, authorization: `Bearer ${token}` },
          setupRequest: (r) => ({
            ...r,
            path: `/api/v2/products/${randomId(context.products)}`,
            body: JSON.stringify({ price: (price = (price % 900) + 1) }),
          }),
        },
      ],
    };
  },
  async check(context) {
    const token = await adminTokenOf(context.baseUrl);
    const { status, body } = await call({ ...context, token }, '/api/v2/products/1', {
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ price: 12.5 }),
    });
    expect(status === 200 && (body as { price: number }).price === 12.5, `product update answered ${status}`);
  },
};

/** Workloads for one comparison (`ab-compare.ts --workloads W9`), outside the standard run. */
/** W10 (DECISIONS §14 "Cost", the write side): a user writes a post through the API, its search document kept. */
const W10: Workload = {
  id: 'W10',
  title: 'POST /api/users/{token user}/posts',
  async prepare(context) {
    let n = 0;
    return {
      requests: [
        {
          method: 'POST',
          path: `/api/users/${context.tokenUserId}/posts`,
          headers: { ...json, ...auth(context) },
          setupRequest: (r) => ({
            ...r,
            body: JSON.stringify({
              title: `Notes on latency ${(n += 1)}`,
              content: 'A garden of coffee, steel and latency: what the week taught about caches and queues.',
            }),
          }),
        },
      ],
    };
  },
  async check(context) {
    const { status } = await call(context, `/api/users/${context.tokenUserId}/posts`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title: 'Check', content: 'Check.' }),
    });
    expect(status === 201, `POST a post answered ${status}`);
  },
};

export const EXTRA_WORKLOADS: Workload[] = [W9, W10];
