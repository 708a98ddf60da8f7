import type { FastifyBaseLogger, FastifyInstance, FastifyPluginOptions } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config/config.ts';
import type { Db } from '../core/db/database.ts';
import type { PollingWorker } from '../core/jobs/polling-worker.ts';
import type { Migration } from 'kysely/migration';
import type { ScrapedGauges } from '../core/ops/scraped-gauges.ts';
import type { Metric } from 'prom-client';
import type { EventPayloads } from './events/event-payloads.ts';
import type { EmbedCatalogue } from '../core/querying/embedding.ts';

/**
 * A module's descriptor: everything the app, the service container and the GraphQL schema need from
 * `modules/<resource>/`, exported once by its `<resource>.module.ts` and listed in `modules/index.ts`.
 * Each part declares the services it uses as its own parameter type; where the list is composed the
 * compiler checks that those services exist (and, for `createService`, that they are built earlier).
 */
export interface ServiceModule<
  Name extends string,
  Service,
  Needs = object,
  RouteUses = object,
  GraphUses = object,
  WorkerUses = object,
  MetricsUses = object,
  EmbedUses = object,
> {
  /** The service's key in the container (`services.<name>`). */
  readonly name: Name;
  /** Builds the module's one service; runs once, in list order. */
  createService(deps: ModuleDeps<Needs>): Service;
  /** The REST routes, registered under every version prefix, with the options they take. */
  readonly routes?: ModuleRoutes<RouteUses>;
  /** The module's slice of the GraphQL schema and the resolvers of its fields. */
  readonly graphql?: ModuleGraphQL<GraphUses>;
  /** Background workers, started once the server listens and stopped on close. */
  workers?(services: WorkerUses, context: WorkerContext): PollingWorker[];
  /**
   * The module's own migrations (Kysely's up/down), by name; names sort after core's history
   * (core/db/migrate.ts: `0006-<resource>`, ...) and never change once applied.
   */
  readonly migrations?: Readonly<Record<string, Migration>>;
  /** Gauges read on each scrape of `/metrics` (e.g. a queue's depth), with their names and help texts. */
  metrics?(services: MetricsUses): ScrapedGauges[];
  /**
   * Counters and histograms the module's service updates as it works (prom-client metrics made with
   * `registers: []`), added to the app's registry: each app counts its own.
   */
  instruments?(services: MetricsUses): Metric[];
  /**
   * The schema of `data` of each event type of the module's resource (events/event-payloads.ts): the
   * schema its routes answer 200 with, or the `*.deleted` shape. The documents' `webhooks` show them.
   */
  readonly eventPayloads?: EventPayloads;
  /**
   * The relations `include` embeds from the module's resources (core/querying/embedding.ts), by kind
   * (`post`: its `author`, its `comments`), each read in batches through the services it names.
   */
  embeds?(services: EmbedUses): EmbedCatalogue;
}

/** What `createService` gets: the database, the configuration (each module derives its settings) and the services built before it. */
export interface ModuleDeps<Needs> {
  db: Db;
  config: Config;
  /** The core services (`tokens`, `idempotency`) and the services of the modules listed earlier. */
  services: Needs;
}

export interface ModuleRoutes<Uses> {
  /** Registers the routes in one versioned API context (`/api`, `/api/v1`, `/api/v2`). */
  register(api: FastifyInstance, services: Uses): Promise<void>;
}

export type FieldMap = Record<string, unknown>;

/**
 * Resolvers per type and field, and the relation fields resolved in batches: each `batched` entry is a
 * batch function over every parent of one level (core/resolving/loaders.ts builds them), which
 * graphql/batched-resolvers.ts turns into the field's resolver. Not Mercurius' `loaders` option.
 */
export interface ModuleGraph {
  resolvers: Record<string, FieldMap>;
  batched: Record<string, FieldMap>;
  /**
   * Types whose `batched` relations are read with the batched list that returns their objects, for
   * all of them at once, instead of by a resolver called per object (graphql/batched-resolvers.ts).
   * Every field returning such a type must be batched; checked at start-up.
   */
  readWithList?: readonly string[];
}

export interface ModuleGraphQL<Uses> {
  /** The module's types, plus `extend type Query { ... }` / `extend type Mutation { ... }` for its root fields. */
  typeDefs: string;
  resolvers(services: Uses): ModuleGraph;
}

export interface WorkerContext {
  config: Config;
  log: FastifyBaseLogger;
}

/** Types a descriptor (names, services and the services each part uses are inferred). */
export function defineModule<
  const Name extends string,
  Service,
  Needs = object,
  RouteUses = object,
  GraphUses = object,
  WorkerUses = object,
  MetricsUses = object,
  EmbedUses = object,
>(
  module: ServiceModule<Name, Service, Needs, RouteUses, GraphUses, WorkerUses, MetricsUses, EmbedUses>,
): ServiceModule<Name, Service, Needs, RouteUses, GraphUses, WorkerUses, MetricsUses, EmbedUses> {
  return module;
}

/** A routes plugin and how its options are picked from the services, e.g. `({ users }) => ({ users })`. */
export function restRoutes<Options extends FastifyPluginOptions>(
  plugin: FastifyPluginAsyncTypebox<Options>,
  options: (services: Options) => Options,
): ModuleRoutes<Options> {
  return {
    async register(api, services) {
      await api.register(plugin, options(services));
    },
  };
}

/** Any descriptor; what each part uses is checked where the list is composed. */
export type AnyModule = ServiceModule<string, unknown, never, never, never, never, never, never>;

export type ServiceOf<M extends AnyModule> = ReturnType<M['createService']>;
type NeedsOf<M extends AnyModule> = Parameters<M['createService']>[0]['services'];

/** The services of a module list, by name: `{ users: UsersService, posts: PostsService, ... }`. */
export type ModuleServices<Ms extends readonly AnyModule[]> = { [M in Ms[number] as M['name']]: ServiceOf<M> };

/**
 * `unknown` when every module of the list needs only services built before it (`Built`, then the
 * modules listed earlier); otherwise an object type naming the first module that does not, so the
 * call passing the list fails to compile.
 */
export type ConstructionOrder<Ms extends readonly AnyModule[], Built> = Ms extends readonly [
  infer First extends AnyModule,
  ...infer Rest extends readonly AnyModule[],
]
  ? Built extends NeedsOf<First>
    ? ConstructionOrder<Rest, Built & { [K in First['name']]: ServiceOf<First> }>
    : { readonly constructionOrderError: `module "${First['name']}" needs a service that is not built before it` }
  : unknown;

/** What the composition loop sees of a descriptor (its types were checked by `ConstructionOrder`). */
type BuildableModule = ServiceModule<string, unknown, Record<string, unknown>, never, never, never, never, never>;

/** Builds each module's service in list order; each one gets `core` and the services built before it. */
export function buildModuleServices<const Ms extends readonly AnyModule[], Core extends Record<string, unknown>>(
  list: Ms & ConstructionOrder<Ms, Core>,
  deps: ModuleDeps<Core>,
): ModuleServices<Ms> {
  const available: Record<string, unknown> = { ...deps.services };
  const built: Record<string, unknown> = {};
  for (const module of list as readonly AnyModule[] as readonly BuildableModule[]) {
    const service = module.createService({ db: deps.db, config: deps.config, services: available });
    available[module.name] = service;
    built[module.name] = service;
  }
  return built as ModuleServices<Ms>;
}

/** Every listed module's migrations, for the migrator (core/db/migrate.ts); two modules may not use one name. */
export function moduleMigrations(list: readonly AnyModule[]): Record<string, Migration> {
  const all: Record<string, Migration> = {};
  for (const module of list) {
    for (const [name, migration] of Object.entries(module.migrations ?? {})) {
      if (name in all) throw new Error(`Migration ${name} is declared by two modules`);
      all[name] = migration;
    }
  }
  return all;
}

/** Every listed module's relations in one catalogue; two modules may not declare one kind. */
export function composeEmbeds(catalogues: readonly (EmbedCatalogue | undefined)[]): EmbedCatalogue {
  const all: Record<string, EmbedCatalogue[string]> = {};
  for (const catalogue of catalogues) {
    for (const [kind, relations] of Object.entries(catalogue ?? {})) {
      if (kind in all) throw new Error(`Embedded relations of ${kind} are declared by two modules`);
      all[kind] = relations;
    }
  }
  return all;
}
