import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, NoSchemaIntrospectionCustomRule, type DocumentNode } from 'graphql';
import mercurius from 'mercurius';
import type { Config } from '../config/config.ts';
import { MAX_OPERATION_NAME_LENGTH } from '../core/ops/request-metrics.ts';
import type { Services } from '../services.ts';
import { assertReadWithList, batchedResolvers } from './batched-resolvers.ts';
import { currentRightsCheck, type GraphQLContext } from '../core/resolving/context.ts';
import { assertCostWithin } from './cost.ts';
import { createDocumentParser, MAX_TOKENS } from './document-parser.ts';
import { documentLimitRules } from './document-limits.ts';
import { createCompiledOperations } from './compiled-operations.ts';
import { createExecutionGate, type GatedContext } from './execution-gate.ts';
import { assertStorableInput } from './storable-input.ts';
import { graphqlRoutes, type BeforeExecution } from './graphql.routes.ts';
import { buildResolvers } from './resolvers.ts';
import { typeDefs } from './schema.ts';

/** Counts more units against the caller's rate-limit budget (core/hardening/rate-limit.ts); 429 when spent. */
export type ChargeRequest = (reply: FastifyReply, weight: number) => Promise<void>;

export interface GraphQLPluginOptions {
  config: Config;
  services: Services;
  charge: ChargeRequest;
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
 * The GraphQL endpoint: Mercurius parses, validates and executes an operation's first runs, graphql-jit
 * the later ones (compiled-operations.ts; both chosen by measurement, docs/GRAPHQL.md); the HTTP layer
 * (media types, status codes, GET rules) is ours, so it meets GraphQL-over-HTTP.
 */
export async function graphqlPlugin(
  app: FastifyInstance,
  { config, services, charge }: GraphQLPluginOptions,
): Promise<void> {
  const { introspection, graphiql } = graphqlSwitches(config);
  const { resolvers: fieldResolvers, batched, readWithList } = buildResolvers(services);
  // Relations are batched per level by our own resolvers, not Mercurius' loaders (see batched-resolvers.ts).
  const resolvers = { ...fieldResolvers };
  for (const [type, fields] of Object.entries(batchedResolvers(batched, readWithList)))
    resolvers[type] = { ...resolvers[type], ...fields };
  const limits = {
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxAliases: config.GRAPHQL_MAX_ALIASES,
    maxRootFields: config.GRAPHQL_MAX_ROOT_FIELDS,
  };
  await app.register(mercurius, {
    schema: typeDefs,
    resolvers: resolvers as never,
    routes: false,
    // Mercurius keeps no documents: its parse caches are bounded by a count of texts (1,024 by default),
    // not by what the texts weigh, so a flood of distinct large documents could grow them without a
    // useful bound. Mercurius then parses and validates each text it runs, which is only the first two
    // runs of an operation: from then on it runs compiled without Mercurius (compiled-operations.ts,
    // bounded in bytes). Without its cache Mercurius' own `jit` has nothing to compile: not set.
    cache: false,
    validationRules: [...documentLimitRules(limits), ...(introspection ? [] : [NoSchemaIntrospectionCustomRule])],
    graphql: { parseOptions: { maxTokens: MAX_TOKENS } },
    // Status codes and error shapes are decided by graphql.routes.ts and errors.ts.
    errorFormatter: (execution) => ({ statusCode: 200, response: execution }),
  });
  assertReadWithList(app.graphql.schema, batched, readWithList);
  const parser = createDocumentParser();
  const operations = createCompiledOperations(() => app.graphql.schema, parser);
  const gate = createExecutionGate(config.GRAPHQL_HEAVY_CONCURRENCY);
  // The pre-execution checks, in this order, returning a promise only when there is something to wait
  // for (a cheap read then runs without one); Mercurius' hook and the compiled path run them alike:
  // 1. the cost check, and the input rules: a refused document costs no database read;
  // 2. the charge of an operation about to run (the request itself counted one already): a refused
  //    document, whatever it would have cost, weighs one request (docs/GRAPHQL.md);
  // 3. the caller's current rights (DECISIONS §5);
  // 4. last, an execution slot for an expensive operation, so nothing can refuse an operation that
  //    holds one: runGraphQL gives the slot back.
  const beforeExecution: BeforeExecution = (schema, document, context, variables) => {
    const { operationName, reply } = context as { operationName?: string; reply: FastifyReply };
    // The document passed validation: its operation's name is a GraphQL name (access log, metrics).
    noteOperation(reply.request, document, operationName);
    const cost = assertCostWithin(config.GRAPHQL_MAX_COST, schema, document, operationName, variables);
    const gated = context as GatedContext;
    gated.operationCost = cost;
    assertStorableInput(document, variables);
    const weight = Math.ceil(Math.min(cost, config.GRAPHQL_MAX_COST) / config.RATE_LIMIT_GRAPHQL_COST_UNIT) - 1;
    const heavy = cost >= config.GRAPHQL_HEAVY_COST;
    const enter = async () => {
      await gate.enter();
      gated.gate = gate;
    };
    const rightsThenSlot = () => {
      const checking = currentRightsCheck(services.rights, document, context as unknown as GraphQLContext);
      if (!checking) return heavy ? enter() : undefined;
      return heavy ? checking.then(enter) : checking;
    };
    return weight > 0 ? charge(reply, weight).then(rightsThenSlot) : rightsThenSlot();
  };
  app.graphql.addHook('preExecution', async (schema, document, context, variables) => {
    await beforeExecution(schema, document, context, variables as Record<string, unknown> | undefined);
  });
  // The endpoint's routes leave the current-rights check to the hook above (core/access/access.ts).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rightsPerOperation: true };
  });
  await app.register(graphqlRoutes, { graphiql, parser, operations, beforeExecution, hideSuggestions: !introspection });
}
