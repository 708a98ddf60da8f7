/**
 * The scale benchmark's requests (bench/queries-scale.ts) for a post's comments, the orders list and
 * GraphQL: the rows (`GET /api/orders?page=1`, `status=paid`, `users(limit: 10, offset:
 * 900000)`, nested GraphQL, a post's comments), one request per operator of each list's grammar
 * (docs/QUERYING.md), `include`, and a deep page by cursor. Each is a label, a path and, for GraphQL,
 * the body of a POST.
 */
export type ScaleRequest = [label: string, path: string, body?: unknown];
export type ScaleGet = (
  path: string,
  body?: unknown,
) => Promise<{ nextCursor?: string | null; pagination?: { nextCursor?: string | null }; data?: unknown }>;

/** A post's comments (the seed gives each post `--comments-per-post`): the list, its operators, `include`. */
export function commentRequests(postId: number, authorId: number): ScaleRequest[] {
  const c = `/api/posts/${postId}/comments`;
  return [
    [`GET ${c} (a post's comments)`, c],
    [`${c}?authorId[in]=${authorId},${authorId + 1}`, `${c}?authorId[in]=${authorId},${authorId + 1}`],
    [
      `${c}?createdAt[gte]=2025-01-01T00:00:00Z&sort=-createdAt`,
      `${c}?createdAt[gte]=2025-01-01T00:00:00Z&sort=-createdAt`,
    ],
    [`${c}?id[gt]=1&count=estimated`, `${c}?id[gt]=1&count=estimated`],
    [`${c}?include=author,post`, `${c}?include=author,post`],
  ];
}

/** The orders list as an administrator (all orders): the rows, each operator, `include`, a cursor. */
export async function orderRequests(get: ScaleGet, orders: number, customerId: number): Promise<ScaleRequest[]> {
  const deepPage = Math.floor(orders / 40);
  const o = '/api/orders';
  const body = await get(`${o}?page=${deepPage}&limit=20&count=none`);
  const deep = encodeURIComponent(body.pagination!.nextCursor!);
  return [
    ['orders: page=1 (admin, all), exact total (rows counted)', `${o}?page=1`],
    ['orders: page=1, count=estimated', `${o}?page=1&count=estimated`],
    ['orders: status=paid, exact total (rows counted)', `${o}?status=paid`],
    ['orders: status=paid, count=estimated', `${o}?status=paid&count=estimated`],
    [`orders: customerId=${customerId} (a customer's orders, exact)`, `${o}?customerId=${customerId}`],
    [
      'orders: status[in]=paid,refunded&sort=-amount, count=none',
      `${o}?status[in]=paid,refunded&sort=-amount&count=none`,
    ],
    ['orders: amount[gte]=500&sort=-amount, count=estimated', `${o}?amount[gte]=500&sort=-amount&count=estimated`],
    ['orders: paidAt[null]=true, count=estimated', `${o}?paidAt[null]=true&count=estimated`],
    [
      'orders: paidAt[gte]=2026-06-01T00:00:00Z&sort=paidAt, count=estimated',
      `${o}?paidAt[gte]=2026-06-01T00:00:00Z&sort=paidAt&count=estimated`,
    ],
    ['orders: currency[ne]=EUR, count=estimated', `${o}?currency[ne]=EUR&count=estimated`],
    [`orders: page ${deepPage} by offset, count=none`, `${o}?page=${deepPage}&limit=20&count=none`],
    [`orders: the page after page ${deepPage} by cursor, count=none`, `${o}?limit=20&count=none&cursor=${deep}`],
    ['orders: include=customer,items.product, count=estimated', `${o}?include=customer,items.product&count=estimated`],
  ];
}

const gql = (query: string): [string, unknown] => ['/graphql', { query }];

/** GraphQL's lists: the deep `offset`, nested fields, a filter, a connection page reached by key. */
export async function graphqlRequests(get: ScaleGet, users: number, withPosts: boolean): Promise<ScaleRequest[]> {
  const offset = Math.floor(users * 0.9);
  // A connection's endCursor is the REST list's nextCursor for the same (default) order and filter.
  const rest = await get(`/api/users?limit=10&page=${offset / 10}&count=none`);
  const after = JSON.stringify(rest.pagination!.nextCursor!);
  return [
    [`GraphQL users(limit: 10, offset: ${offset})`, ...gql(`{ users(limit: 10, offset: ${offset}) { id name } }`)],
    [
      `GraphQL usersConnection(limit: 10, after: the cursor at ${offset})`,
      ...gql(`{ usersConnection(limit: 10, after: ${after}) { nodes { id name } pageInfo { endCursor } } }`),
    ],
    [
      'GraphQL users(filter: {age: {gte: 30}}, orderBy: [AGE_DESC])',
      ...gql('{ users(limit: 10, filter: {age: {gte: 30}}, orderBy: [AGE_DESC]) { id age } }'),
    ],
    ...(withPosts
      ? ([
          [
            'GraphQL posts(limit: 10) { author, comments { author } } (nested)',
            ...gql('{ posts(limit: 10) { id title author { name } comments { text author { name } } } }'),
          ],
        ] as ScaleRequest[])
      : []),
  ];
}
