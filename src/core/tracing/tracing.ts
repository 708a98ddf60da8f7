import type { Tracing, TracingSettings } from './tracing-types.ts';

export type {
  HttpClientSpan,
  MessageSpan,
  SpanAttributes,
  TraceContext,
  Tracing,
  TracingSettings,
} from './tracing-types.ts';

/**
 * OpenTelemetry tracing (DECISIONS §17), off unless an OTLP endpoint is set. This file is the switch and
 * the shape the rest of the code sees; it imports nothing of OpenTelemetry: the SDK (tracing-sdk.ts and
 * what it imports) is loaded by `startTracing` only when tracing is on, so a service without a collector
 * never loads it. Callers ask `activeTracing()` and skip their spans when it is undefined.
 */

let active: Tracing | undefined;
let starting: Promise<Tracing | undefined> | undefined;

/** The running tracing, or undefined when it is off. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/**
 * Runs `run` outside any trace (the root context): what a background worker does when a request's
 * commit woke it is its own work, not the request's. Without tracing, just runs it.
 */
export function inRootContext<T>(run: () => T): T {
  return active ? active.inRoot(run) : run();
}

/**
 * Where spans are sent: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT`
 * with `/v1/traces` appended (the OTLP specification's rule); undefined: tracing is off.
 */
export function tracesEndpoint(settings: TracingSettings): string | undefined {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * Starts tracing once per process when an endpoint is set (later calls return the same one); without one,
 * returns undefined and loads nothing.
 */
export function startTracing(settings: TracingSettings): Promise<Tracing | undefined> {
  const url = tracesEndpoint(settings);
  if (!url) return Promise.resolve(active);
  starting ??= import('./tracing-sdk.ts')
    .then(({ createTracing }) =>
      createTracing({ url, protocol: settings.OTEL_EXPORTER_OTLP_PROTOCOL, serviceName: settings.OTEL_SERVICE_NAME }),
    )
    .then((tracing) => (active = tracing));
  return starting;
}
