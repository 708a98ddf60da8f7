import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';

/** What the rest of the code sees of tracing (tracing.ts); its SDK side implements it (tracing-sdk.ts). */

/** The settings tracing starts from: the `OTEL_*` variables of the configuration (src/config/env-schema.ts). */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' | 'http/json';
  /** Unset: `service.name` from `OTEL_RESOURCE_ATTRIBUTES`, else `content-service`. */
  OTEL_SERVICE_NAME?: string | undefined;
}

/** An outgoing HTTP request's client span, under way. */
export interface HttpClientSpan {
  /** The headers to send with the request: `traceparent` (and `tracestate`) naming this span. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the span with the answer's status, or with the failure's `error.type`: a short name (an error code, `timeout`), never a message. */
  end(outcome: { status: number } | { error: string }): void;
}

export type SpanAttributes = Record<string, string | number | boolean>;

/** A span's context as W3C trace context carries it: kept with an event, sent as headers. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string | undefined;
}

/** A message's producer span, under way. */
export interface MessageSpan {
  /** The headers to send with the message: `traceparent` (and `tracestate`) naming this span. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the span, failed with `error` (a short `error.type`, never a message) when given. */
  end(error?: string): void;
}

export interface Tracing {
  /**
   * `run` wrapped so that each call runs in an internal span of its own, child of the active one; the span
   * ends when the call returns or, for a promise, settles. A result with GraphQL `errors` marks it failed.
   */
  wrap<A extends unknown[], R>(name: string, attributes: SpanAttributes, run: (...args: A) => R): (...args: A) => R;
  /**
   * A client span for one HTTP request, child of `parent` (a trace context kept with an event) when
   * given, else of the active span (none: a trace of its own).
   */
  startHttpClientSpan(method: string, url: URL, parent?: TraceContext): HttpClientSpan;
  /**
   * A producer span for one message published to `destination` (`send`, as the messaging conventions
   * name it), child of `parent` when given, else of the active span.
   */
  startMessageSpan(system: string, destination: string, attributes: SpanAttributes, parent?: TraceContext): MessageSpan;
  /** The active span's context, to keep with an event (undefined outside any span). */
  activeContext(): TraceContext | undefined;
  /** Runs `run` in the root context: a background worker woken by a request must not join its trace. */
  inRoot<T>(run: () => T): T;
  /** `trace_id` and `span_id` of the active span, for a log line (pino's mixin; empty outside a span). */
  logFields(): { trace_id?: string; span_id?: string };
  /** A server span per HTTP request on `app` (registered before any route) and a span per statement of `db`. */
  register(app: FastifyInstance, db: Db): Promise<void>;
  /** Exports what is pending, waiting at most `timeoutMs` (a collector that does not answer is not waited for). */
  flush(timeoutMs: number): Promise<void>;
}
