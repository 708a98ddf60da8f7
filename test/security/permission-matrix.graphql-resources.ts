import type { Role, World } from './permission-world.test-support.ts';

/** The table's `GraphQLOutcome` and `GraphQLRule` (declared again: the table imports these rows). */
type GraphQLOutcome = 'ok' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND';
interface GraphQLRule {
  expect: Record<Role, GraphQLOutcome>;
  writes?: boolean;
  operation(world: World): Promise<{ query: string; variables?: Record<string, unknown> }>;
}

/**
 * The GraphQL rows of DECISIONS §15 (products, orders, comments by id, likes), part of the table's
 * `GRAPHQL_RULES`: the outcomes of their REST routes' rows, in GraphQL's words. Someone else's order reads as null (REST's 404), so `query order` is
 * `ok` for every signed-in caller while their actions on it are NOT_FOUND.
 */
const g = (anonymous: GraphQLOutcome, user: GraphQLOutcome, owner: GraphQLOutcome, admin: GraphQLOutcome) => ({
  anonymous,
  user,
  owner,
  admin,
});

const orderAction = (mutation: string, which: 'pendingOrderId' | 'paidOrderId') => async (w: World) => ({
  query: `mutation ($id: ID!) { ${mutation}(id: $id) { id status } }`,
  variables: { id: String(await w[which]()) },
});

export const GRAPHQL_RESOURCE_RULES: Record<string, GraphQLRule> = {
  'query product': {
    expect: g('ok', 'ok', 'ok', 'ok'),
    operation: async (w) => ({
      query: 'query ($id: ID!) { product(id: $id) { id price } }',
      variables: { id: String(await w.productId()) },
    }),
  },
  'query products': { expect: g('ok', 'ok', 'ok', 'ok'), operation: async () => ({ query: '{ products { id } }' }) },
  'mutation createProduct': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'FORBIDDEN', 'ok'),
    writes: true,
    operation: async () => ({
      query: 'mutation { createProduct(input: { name: "P", category: "c", price: 1.5, stock: 1 }) { id } }',
    }),
  },
  'mutation updateProduct': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'FORBIDDEN', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { updateProduct(id: $id, input: { price: 3 }) { id } }',
      variables: { id: String(await w.productId()) },
    }),
  },
  'mutation deleteProduct': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'FORBIDDEN', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { deleteProduct(id: $id) }',
      variables: { id: String(await w.productId()) },
    }),
  },
  'query order': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async (w) => ({
      query: 'query ($id: ID!) { order(id: $id) { id } }',
      variables: { id: String(await w.pendingOrderId()) },
    }),
  },
  'query orders': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async () => ({ query: '{ orders { id } }' }),
  },
  // DECISIONS §14: a customer aggregates their own orders (the REST route's row); products are public.
  'query ordersAggregate': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async () => ({ query: '{ ordersAggregate(groupBy: ["status"]) { groups data { count } } }' }),
  },
  'query productsAggregate': {
    expect: g('ok', 'ok', 'ok', 'ok'),
    operation: async () => ({ query: '{ productsAggregate(groupBy: ["category"]) { groups data { count } } }' }),
  },
  'mutation createOrder': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($p: ID!) { createOrder(input: { items: [{ productId: $p, quantity: 1 }] }) { id } }',
      variables: { p: String(await w.productId()) },
    }),
  },
  'mutation payOrder': {
    expect: g('UNAUTHENTICATED', 'NOT_FOUND', 'ok', 'ok'),
    writes: true,
    operation: orderAction('payOrder', 'pendingOrderId'),
  },
  'mutation cancelOrder': {
    expect: g('UNAUTHENTICATED', 'NOT_FOUND', 'ok', 'ok'),
    writes: true,
    operation: orderAction('cancelOrder', 'pendingOrderId'),
  },
  'mutation refundOrder': {
    expect: g('UNAUTHENTICATED', 'NOT_FOUND', 'FORBIDDEN', 'ok'),
    writes: true,
    operation: orderAction('refundOrder', 'paidOrderId'),
  },
  'query comment': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async (w) => ({
      query: 'query ($id: ID!) { comment(id: $id) { id likes { userId } } }',
      variables: { id: String(await w.likedCommentId()) },
    }),
  },
  'mutation addComment': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($p: ID!) { addComment(input: { postId: $p, text: "Hi" }) { id } }',
      variables: { p: String(await w.postId()) },
    }),
  },
  'mutation updatePost': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { updatePost(id: $id, input: { title: "Edited" }) { id } }',
      variables: { id: String(await w.postId()) },
    }),
  },
  'mutation deletePost': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { deletePost(id: $id) }',
      variables: { id: String(await w.postId()) },
    }),
  },
  'mutation deleteComment': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { deleteComment(id: $id) }',
      variables: { id: String(await w.commentId()) },
    }),
  },
  'mutation likeComment': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { likeComment(commentId: $id) { userId } }',
      variables: { id: String(await w.likedCommentId()) },
    }),
  },
  'mutation unlikeComment': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { unlikeComment(commentId: $id) }',
      variables: { id: String(await w.likedCommentId()) },
    }),
  },
};
