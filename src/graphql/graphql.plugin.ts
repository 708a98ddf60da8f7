import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, NoSchemaIntrospectionCustomRule, type DocumentNode } from 'graphql';
import type { Config } from '../config/config.ts';
import type { LiveMetrics } from '../core/ops/live-metrics.ts';
import { MAX_OPERATION_NAME_LENGTH } from '../core/ops/request-metrics.ts';
import type { Services } from '../services.ts';
import { assertReadWithList, batchedResolvers } from './batched-resolvers.ts';
import { currentRightsCheck } from '../core/resolving/context.ts';
import { assertCostWithin } from './cost.ts';
import { documentLimitRules } from './document-limits.ts';
import { createOperationCache } from './operation-cache.ts';
import { executableSchema, withResolvers, type ResolverMap } from './executable-schema.ts';
import { createExecutionGate } from './execution-gate.ts';
import { assertStorableInput } from './storable-input.ts';
import { graphqlRoutes, type BeforeExecution } from './graphql.routes.ts';
import { demoTokenHeaders } from './graphiql-demo-token.ts';
import { buildResolvers } from './resolvers.ts';
import { typeDefs } from './schema.ts';
import { registerSubscriptions, type LiveStatus } from './subscriptions/subscriptions.plugin.ts';
import { subscriptionResolvers } from './subscriptions/subscription-fields.ts';

/** Counts more units against the caller's rate-limit budget (core/hardening/rate-limit.ts); 429 when spent. */
export type ChargeRequest = (reply: FastifyReply, weight: number) => Promise<void>;

export interface GraphQLPluginOptions {
  config: Config;
  services: Services;
  /** Where the subscriptions report (core/ops/live-metrics.ts). */
  live: LiveMetrics;
  charge: ChargeRequest;
  /** Receives what the process's subscriptions look like now (tests; `App.live`). */
  onLive?: (status: LiveStatus) => void;
}

/** Names the operation about to run on the request; the route settles its outcome when it answers. */
function noteOperation(request: FastifyRequest, document: DocumentNode, operationName: string | undefined): void {
  const operation = getOperationAST(document, operationName);
  request.graphqlOperation = {
    name: operation?.name?.value.slice(0, MAX_OPERATION_NAME_LENGTH) ?? '(anonymous)',
    type: operation?.operation ?? '(none)',
    outcome: 'success',
  };
}

/** Introspection and GraphiQL: on outside production unless switched off, off in production unless switched on. */
export function graphqlSwitches(config: Config): { introspection: boolean; graphiql: boolean } {
  const development = config.NODE_ENV !== 'production';
  return { introspection: config.GRAPHQL_INTROSPECTION ?? development, graphiql: config.GRAPHIQL ?? development };
}

/**
 * The GraphQL endpoint, one pipeline for HTTP, WebSocket and SSE (docs/GRAPHQL.md, "Engine"): our parser
 * (token and nesting caps), graphql-js' validation with our rules, graphql-jit's compiled query, all kept
 * in one cache per text (operation-cache.ts); then the pre-execution checks below and execution. The HTTP
 * layer (media types, status codes, GET rules) is graphql.routes.ts; subscriptions are subscriptions/.
 */
export async function graphqlPlugin(
  app: FastifyInstance,
  { config, services, live: liveMetrics, charge, onLive }: GraphQLPluginOptions,
): Promise<void> {
  const { introspection, graphiql } = graphqlSwitches(config);
  const { resolvers: fieldResolvers, batched, readWithList } = buildResolvers(services);
  const subscriptionFields = subscriptionResolvers();
  const allBatched = { ...batched, ...subscriptionFields.batched };
  // Relations are batched per level by our own resolvers (see batched-resolvers.ts).
  const resolvers: ResolverMap = { ...fieldResolvers, ...subscriptionFields.resolvers };
  // The batched ones last, over the built schema: it tells which relations take arguments.
  const schema = executableSchema(typeDefs, resolvers);
  withResolvers(schema, batchedResolvers(allBatched, readWithList, schema));
  assertReadWithList(schema, allBatched, readWithList);
  const limits = {
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxAliases: config.GRAPHQL_MAX_ALIASES,
    maxRootFields: config.GRAPHQL_MAX_ROOT_FIELDS,
  };
  const operations = createOperationCache({
    schema,
    rules: [...documentLimitRules(limits), ...(introspection ? [] : [NoSchemaIntrospectionCustomRule])],
  });
  const gate = createExecutionGate(config.GRAPHQL_HEAVY_CONCURRENCY);
  // The pre-execution checks, in this order, returning a promise only when there is something to wait
  // for (a cheap read then runs without one):
  // 1. the cost check, and the input rules: a refused document costs no database read;
  // 2. the charge of an operation about to run (the request itself counted one already): a refused
  //    document, whatever it would have cost, weighs one request (docs/GRAPHQL.md);
  // 3. the caller's current rights (DECISIONS §5);
  // 4. last, an execution slot for an expensive operation, so nothing can refuse an operation that
  //    holds one: runGraphQL gives the slot back.
  const beforeExecution: BeforeExecution = (document, context, variables) => {
    const { operationName, reply } = context;
    // The document passed validation: its operation's name is a GraphQL name (access log, metrics).
    noteOperation(reply.request, document, operationName);
    const cost = assertCostWithin(
      config.GRAPHQL_MAX_COST,
      schema,
      document,
      operationName,
      variables,
      config.RATE_LIMIT_GRAPHQL_COST_UNIT,
    );
    context.operationCost = cost;
    assertStorableInput(document, variables);
    const weight = Math.ceil(Math.min(cost, config.GRAPHQL_MAX_COST) / config.RATE_LIMIT_GRAPHQL_COST_UNIT) - 1;
    const heavy = cost >= config.GRAPHQL_HEAVY_COST;
    const enter = async () => {
      await gate.enter();
      context.gate = gate;
    };
    const rightsThenSlot = () => {
      const checking = currentRightsCheck(services.rights, document, context);
      if (!checking) return heavy ? enter() : undefined;
      return heavy ? checking.then(enter) : checking;
    };
    return weight > 0 ? charge(reply, weight).then(rightsThenSlot) : rightsThenSlot();
  };
  // The endpoint's routes leave the current-rights check to the checks above (core/access/access.ts).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rightsPerOperation: true };
  });
  const hideSuggestions = !introspection;
  const live = await registerSubscriptions(app, {
    config,
    services,
    metrics: liveMetrics,
    schema,
    operations,
    gate,
    hideSuggestions,
  });
  onLive?.(live.status);
  // In development GraphiQL opens signed in as a demo account, so its default query answers (graphiql-demo-token.ts).
  const graphiqlOptions = graphiql && {
    presetHeaders: config.NODE_ENV === 'production' ? undefined : demoTokenHeaders(services.auth),
  };
  await app.register(graphqlRoutes, {
    graphiql: graphiqlOptions,
    schema,
    operations,
    beforeExecution,
    hideSuggestions,
    live,
  });
}
