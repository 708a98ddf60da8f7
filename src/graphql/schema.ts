import { PAGE_INFO_TYPE_DEFS } from '../core/querying/list-graphql.ts';
import { SEARCH_HIGHLIGHT_TYPE_DEFS } from '../core/resolving/highlights.ts';
import { modules } from '../modules/index.ts';
import { subscriptionTypeDefs } from './subscriptions/subscription-fields.ts';

/**
 * The root operation types: each module adds its fields with `extend type Query { ... }` and
 * `extend type Mutation { ... }` in its `<resource>.graphql.ts`.
 */
export const rootTypeDefs = /* GraphQL */ `
  type Query

  type Mutation
`;

/**
 * The GraphQL schema, composed from the modules' slices in list order (the roots last, so they print
 * last): the seed's types, inputs, queries and mutations exactly, plus only the additions of
 * DECISIONS §6 (`limit`/`offset` on every list field, `Comment.post`) and §11 (the Subscription root).
 * Defaults are declared in the slices so introspection shows them; resolvers clamp to at most 100.
 */
export const typeDefs = [
  ...modules.flatMap((module) => (module.graphql ? [module.graphql.typeDefs] : [])),
  rootTypeDefs,
  PAGE_INFO_TYPE_DEFS,
  SEARCH_HIGHLIGHT_TYPE_DEFS,
  subscriptionTypeDefs,
].join('');
