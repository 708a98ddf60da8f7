/**
 * What the console knows of each list of the API (DECISIONS §12, §14, §20): its path, how it pages
 * (page lists carry `pagination.nextCursor`; posts, comments' nested lists, customers and events are
 * cursor lists), which sorts and facets it takes, and where its items are read, written and deleted.
 * Everything else (form fields, their types and rules) comes from the OpenAPI document.
 */
export interface ResourceSpec {
  /** The list's path under /api/v2. */
  list: string;
  /** The query parameter that continues a page (`cursor`, or `after` for the event feed). */
  cursorParam: 'cursor' | 'after' | 'page';
  /** Whether the list takes `count=none` (no total: the first page of a big table stays fast). */
  countNone: boolean;
  /** How `sort` is written: §12's `-field`, the users list's `sort` + `order`, or not at all. */
  sort: 'signed' | 'order' | 'none';
  facets?: string[];
  /** The item's path, for reads, PATCH, DELETE, history and restore. */
  item?: (id: string | number, record?: Record<string, unknown>) => string;
  /** The creating POST's path, from the form's values (a post is created under its author). */
  create?: (data: Record<string, unknown>) => string;
  /** The list and the document name these fields in the OpenAPI document. */
  createPath?: string;
  updatePath?: string;
  /** Resources with a trash and revisions (DECISIONS §19). */
  trash?: boolean;
  /** Sent with each list request (`include`, `highlight`). */
  extra?: Record<string, string>;
  title: (record: Record<string, unknown>) => string;
}

export const RESOURCES: Record<string, ResourceSpec> = {
  users: {
    list: '/users',
    cursorParam: 'cursor',
    countNone: true,
    sort: 'order',
    item: (id) => `/users/${id}`,
    create: () => '/users',
    createPath: '/users',
    updatePath: '/users/{userId}',
    trash: true,
    title: (record) => String(record.name ?? record.id),
  },
  posts: {
    list: '/posts',
    cursorParam: 'cursor',
    countNone: true,
    sort: 'signed',
    item: (id) => `/posts/${id}`,
    create: (data) => `/users/${String(data.authorId)}/posts`,
    createPath: '/users/{userId}/posts',
    updatePath: '/posts/{postId}',
    trash: true,
    title: (record) => String(record.title ?? record.id),
  },
  comments: {
    list: '/comments',
    cursorParam: 'cursor',
    countNone: true,
    sort: 'signed',
    item: (id, record) => (record?.postId ? `/posts/${String(record.postId)}/comments/${id}` : `/comments/${id}`),
    trash: true,
    title: (record) => String(record.text ?? record.id).slice(0, 60),
  },
  products: {
    list: '/products',
    cursorParam: 'cursor',
    countNone: true,
    sort: 'signed',
    facets: ['category'],
    item: (id) => `/products/${id}`,
    create: () => '/products',
    createPath: '/products',
    updatePath: '/products/{productId}',
    trash: true,
    title: (record) => String(record.name ?? record.id),
  },
  orders: {
    list: '/orders',
    cursorParam: 'cursor',
    countNone: true,
    sort: 'signed',
    facets: ['status', 'currency'],
    item: (id) => `/orders/${id}`,
    title: (record) => `Order ${String(record.id)}`,
  },
  customers: {
    list: '/customers',
    cursorParam: 'cursor',
    countNone: false,
    sort: 'none',
    item: (id) => `/customers/${id}`,
    title: (record) => String(record.name ?? record.id),
  },
  webhooks: {
    list: '/webhooks',
    cursorParam: 'page',
    countNone: false,
    sort: 'none',
    item: (id) => `/webhooks/${id}`,
    create: () => '/webhooks',
    createPath: '/webhooks',
    updatePath: '/webhooks/{webhookId}',
    title: (record) => String(record.url ?? record.id),
  },
  events: {
    list: '/events',
    cursorParam: 'after',
    countNone: false,
    sort: 'none',
    title: (record) => String(record.type ?? record.id),
  },
};

/** The resource an event type (`product.updated`) changes, for live lists. */
export function resourceOfEvent(type: string): string | undefined {
  const kind = type.split('.')[0];
  return kind
    ? { user: 'users', post: 'posts', comment: 'comments', product: 'products', order: 'orders' }[kind]
    : undefined;
}
