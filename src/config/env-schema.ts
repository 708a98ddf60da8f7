import { Type, type Static } from 'typebox';
import { SecurityEnvSchema } from './env-security.ts';

/**
 * Every setting the service reads from the environment, with its default.
 * The `Config` type is derived from this schema, so a new setting is declared once.
 */
export const EnvSchema = Type.Object({
  NODE_ENV: Type.Enum(['development', 'production', 'test'], { default: 'development' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATABASE_URL: Type.String({
    pattern: '^(sqlite:.+|postgres(ql)?://.+)$',
    default: 'sqlite:./data/content.db',
    description: 'sqlite:<path>, sqlite::memory: or postgres://user@host:port/db',
  }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    maximum: 86400000,
    default: 15000,
    description:
      "PostgreSQL statement_timeout of the server's connections: a longer statement is cancelled (503); 0 sets none. Migrations run without it; SQLite has none",
  }),
  COUNT_EXACT_LIMIT: Type.Integer({ minimum: 0, maximum: 100000000, default: 10000 }),
  /** A search's relevance order ranks at most this many of its matches (DECISIONS §14 "Cost"); 0 ranks them all. */
  SEARCH_RANK_CANDIDATES: Type.Integer({ minimum: 0, maximum: 100000000, default: 1000 }),
  /** Unset: on in development and test, off in production (demo accounts have a published password). */
  DEMO_DATA: Type.Optional(Type.Boolean()),
  ADMIN_EMAIL: Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$', default: 'admin@example.com' }),
  ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 8 })),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  JWT_ISSUER: Type.String({ minLength: 1, default: 'content-service' }),
  JWT_AUDIENCE: Type.String({ minLength: 1, default: 'content-service' }),
  JWT_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 86400, default: 900 }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  STORE_CURRENCY: Type.String({ pattern: '^[A-Z]{3}$', default: 'USD' }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 10000 }),
  WORKERS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 1,
    description: 'Server processes on this machine (node:cluster)',
  }),
  PROCESS_ROLE: Type.Enum(['all', 'api', 'worker'], {
    default: 'all',
    description:
      'What this process runs (DECISIONS §16): all (the API and every background worker), api (the API only), worker (the background workers only)',
  }),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    minimum: 0,
    maximum: 60000,
    default: 1000,
    description: 'Event-loop delay beyond which new requests get 503 + Retry-After; 0 turns shedding off',
  }),
  ORDER_HOLD_MINUTES: Type.Number({
    exclusiveMinimum: 0,
    maximum: 525600,
    default: 30,
    description:
      'How long a pending order holds its stock before the service cancels it; decimals allowed (0.01 = 0.6 s, for tests)',
  }),
  ORDER_SWEEP_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 3600000,
    default: 30000,
    description: 'How often each instance looks for pending orders past their hold',
  }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'Serve /metrics on this port of HOST (no token) instead of the main port; 0 picks a free one',
    }),
  ),
  ORDER_HOLD_WORKER: Type.Boolean({
    default: true,
    description: 'Run the order-hold sweep in this process (at least one instance must)',
  }),
  REPORT_WORKER: Type.Boolean({ default: true, description: 'Run the background report worker in this process' }),
  IMPORT_MAX_BYTES: Type.Integer({
    minimum: 1,
    default: 1073741824,
    description: 'The largest import upload (DECISIONS §18); a larger one is 413 and nothing is stored',
  }),
  IMPORT_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 3600000,
    default: 1000,
    description: 'How often workers look for import chunks',
  }),
  IMPORT_LEASE_MS: Type.Integer({
    minimum: 1000,
    maximum: 3600000,
    default: 60000,
    description: 'How long a worker holds an import between chunks; after it another worker resumes the job',
  }),
  IMPORT_CHUNK_ROWS: Type.Integer({
    minimum: 1,
    maximum: 10000,
    default: 1000,
    description: 'Rows an import writes per transaction, its position committed with them (DECISIONS §18)',
  }),
  IMPORT_LANES: Type.Integer({
    minimum: 1,
    maximum: 16,
    default: 2,
    description:
      'PostgreSQL: chunks of one import a worker writes at once, each in its own transaction on its own connection, while the database serves little else (with IMPORT_YIELD; one while it does); SQLite always writes one: it has one writer',
  }),
  IMPORT_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 5,
    description:
      'Attempts at an import chunk whose writing fails with an internal error (not a row refused by validation) before the job fails',
  }),
  IMPORT_YIELD: Type.Boolean({
    default: true,
    description:
      'After an import chunk that took longer than the job usually needs (other work competing for the cores or the database), the worker waits as long as it was slowed, at most 1 s, and it writes one chunk at a time (not IMPORT_LANES) while the database serves other transactions, so the API stays responsive; false writes chunks back to back, always in IMPORT_LANES',
  }),
  REPORT_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 3600000,
    default: 1000,
    description: 'How often the worker looks for queued reports',
  }),
  REPORT_LEASE_MS: Type.Integer({
    minimum: 100,
    maximum: 86400000,
    default: 60000,
    description: 'How long a claimed report is held before another instance may take it over',
  }),
  EVENT_RETENTION_HOURS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 87600,
    default: 168,
    description: 'How long events are kept for the feed (docs/EVENTS.md); decimals allowed',
  }),
  EVENT_PURGE_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 86400000,
    default: 600000,
    description: 'How often each instance deletes events past their retention',
  }),
  // DECISIONS §19: how long deleted items stay in the trash (decimals allowed), how often the workers sweep it.
  TRASH_RETENTION_DAYS: Type.Number({ exclusiveMinimum: 0, maximum: 36500, default: 30 }),
  TRASH_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 86400000, default: 60000 }),
  // DECISIONS §19: revisions kept per item, and for how long (decimals allowed); swept with the trash.
  REVISIONS_KEEP: Type.Integer({ minimum: 1, maximum: 1000000, default: 100 }),
  REVISIONS_RETENTION_DAYS: Type.Number({ exclusiveMinimum: 0, maximum: 36500, default: 365 }),
  EVENT_STREAM_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60000,
    default: 500,
    description: 'How often an open event stream looks for new events',
  }),
  EVENT_STREAM_HEARTBEAT_MS: Type.Integer({
    minimum: 10,
    maximum: 15000,
    default: 15000,
    description: 'Longest silence on an event stream before a heartbeat comment',
  }),
  // Webhooks (docs/EVENTS.md; docs/CONFIGURATION.md says what each does).
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120000, default: 10000 }),
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    pattern: '^\\s*\\d+(\\.\\d+)?(ms|s|m|h)\\s*(,\\s*\\d+(\\.\\d+)?(ms|s|m|h)\\s*)*$',
    default: '5s,5m,30m,2h,5h,10h,10h',
  }),
  WEBHOOK_SECRET_OVERLAP_HOURS: Type.Number({ minimum: 0, maximum: 8760, default: 24 }),
  WEBHOOK_ALLOW_PRIVATE_URLS: Type.Boolean({ default: false }),
  WEBHOOK_FANOUT_POLL_MS: Type.Integer({ minimum: 10, maximum: 60000, default: 200 }),
  WEBHOOK_DELIVERY_POLL_MS: Type.Integer({ minimum: 10, maximum: 60000, default: 1000 }),
  WEBHOOK_LEASE_MS: Type.Integer({ minimum: 100, maximum: 3600000, default: 60000 }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 8 }),
  NATS_URL: Type.Optional(
    Type.String({
      pattern: '^(nats|tls)://[^,\\s]+(,(nats|tls)://[^,\\s]+)*$',
      description: 'Publishes every event to NATS JetStream (docs/EVENTS.md); a comma list names several servers',
    }),
  ),
  NATS_SUBJECT_PREFIX: Type.String({
    pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
    default: 'content.events',
    description: 'Events are published on <prefix>.<type>',
  }),
  NATS_STREAM: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,255}$',
    default: 'CONTENT_EVENTS',
    description: 'The JetStream stream, created with the subjects <prefix>.> if missing',
  }),
  NATS_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60000,
    default: 500,
    description: 'How often the publisher looks for events no commit of this process woke it for',
  }),
  NATS_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'Events the publisher takes from the outbox at a time',
  }),
  NATS_PUBLISH_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60000,
    default: 5000,
    description: 'How long a publication waits for its acknowledgement (and a connection attempt lasts)',
  }),
  API_V1_SUNSET: Type.String({
    pattern:
      '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$',
    default: 'Sun, 21 Nov 2027 00:00:00 GMT',
    description: 'When REST v1 is withdrawn (HTTP-date, the `Sunset` header); v2 was released on 2026-11-21',
  }),
  GRAPHQL_MAX_DEPTH: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  GRAPHQL_MAX_COST: Type.Integer({
    minimum: 1,
    default: 50000,
    description: 'Most objects one GraphQL operation may return (see docs/GRAPHQL.md)',
  }),
  GRAPHQL_HEAVY_COST: Type.Integer({
    minimum: 1,
    default: 1000,
    description:
      'From this cost on a GraphQL operation waits for one of GRAPHQL_HEAVY_CONCURRENCY execution slots (docs/GRAPHQL.md)',
  }),
  GRAPHQL_HEAVY_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 4,
    description: 'Expensive GraphQL operations executing at once per process; the others wait their turn',
  }),
  GRAPHQL_MAX_ALIASES: Type.Integer({ minimum: 0, maximum: 1000, default: 30 }),
  GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  /** How often the subscriptions' feed reader looks for events besides right after this process's commits. */
  GRAPHQL_SUBSCRIPTION_POLL_MS: Type.Integer({ minimum: 10, maximum: 600000, default: 100 }),
  GRAPHQL_MAX_ROOT_FIELDS: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  /** Unset: on in development and test, off in production. */
  GRAPHQL_INTROSPECTION: Type.Optional(Type.Boolean()),
  GRAPHIQL: Type.Optional(Type.Boolean()),
  /** The admin console at /admin (DECISIONS §20); `false` makes /admin a 404. */
  ADMIN_CONSOLE: Type.Boolean({ default: true }),
  // Security (docs/SECURITY.md): external identity providers, rate limits, hardening (env-security.ts).
  ...SecurityEnvSchema.properties,
  // Tracing (DECISIONS §17, docs/OPERATIONS.md "10. Tracing"): the standard OpenTelemetry variables; the SDK reads the others itself.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://.+',
      description:
        'Turns tracing on: spans go over OTLP/HTTP to <endpoint>/v1/traces (an OpenTelemetry collector, Jaeger)',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://.+',
      description: 'Turns tracing on with this exact traces URL (wins over the above)',
    }),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: Type.Enum(['http/protobuf', 'http/json'], { default: 'http/protobuf' }),
  OTEL_SERVICE_NAME: Type.Optional(
    Type.String({ minLength: 1, description: "The spans' service.name; default content-service" }),
  ),
  OTEL_RESOURCE_ATTRIBUTES: Type.Optional(
    Type.String({ description: 'More attributes of the service, key=value pairs separated by commas' }),
  ),
  OTEL_TRACES_SAMPLER: Type.Enum(
    [
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ],
    {
      default: 'parentbased_always_on',
      description: 'Which traces are kept (an incoming traceparent decides first with parentbased_*)',
    },
  ),
  OTEL_TRACES_SAMPLER_ARG: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1, description: 'The ratio of the *traceidratio samplers' }),
  ),
});

export type Env = Static<typeof EnvSchema>;
