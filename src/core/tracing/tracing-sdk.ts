import {
  context,
  defaultTextMapSetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { startHttpClientSpan } from './client-spans.ts';
import { startMessageSpan } from './message-spans.ts';
import { KEPT_CONTEXT, propagatorsFromEnv } from './propagators-from-env.ts';
import { registerRequestSpans } from './request-spans.ts';
import { observeStatements } from './statement-spans.ts';
import type { Tracing } from './tracing-types.ts';

/** The tracer's name on every span this service makes. */
const TRACER_NAME = 'content-service';

/** The longest a closing app waits for its last spans to be exported. */
const FLUSH_AT_CLOSE_MS = 2000;

export interface SdkSettings {
  /** The OTLP/HTTP traces URL (tracing.ts, `tracesEndpoint`). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  serviceName?: string | undefined;
}

/** The official exporter of the protocol, each its own package: only the one in use is loaded. */
async function exporterFor(settings: SdkSettings): Promise<SpanExporter> {
  const { OTLPTraceExporter } =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  // The other OTEL_EXPORTER_OTLP_* settings (headers, timeout, compression) are read by the exporter itself.
  return new OTLPTraceExporter({ url: settings.url });
}

/**
 * OpenTelemetry's SDK, registered as the process's global tracer provider: the AsyncLocalStorage context
 * manager, the propagators `OTEL_PROPAGATORS` names (W3C trace context and baggage by default), the
 * sampler and span limits of the `OTEL_TRACES_SAMPLER*` and `OTEL_SPAN_*` variables (read by the SDK), and
 * its batch span processor (`OTEL_BSP_*`): spans are exported in the background, in batches, so a
 * collector that is slow, down or never answers costs a request nothing (spans past the processor's queue
 * are dropped, not waited for).
 */
export async function createTracing(settings: SdkSettings): Promise<Tracing> {
  // Precedence of the specification: OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then ours.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'content-service' })
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(settings.serviceName ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }) : null);
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(await exporterFor(settings))],
  });
  const propagators = propagatorsFromEnv();
  const contextManager = new AsyncLocalStorageContextManager();
  provider.register({ contextManager, propagator: propagators.propagator });
  const tracer = trace.getTracer(TRACER_NAME);

  const tracing: Tracing = {
    wrap(name, attributes, run) {
      const options = { attributes };
      return (...args) =>
        tracer.startActiveSpan(name, options, (span) => {
          let result;
          try {
            result = run(...args);
          } catch (error) {
            endFailed(span);
            throw error;
          }
          if (!isPromise(result)) return endWith(span, result);
          return result.then(
            (value) => endWith(span, value),
            (error: unknown) => {
              endFailed(span);
              throw error;
            },
          ) as typeof result;
        });
    },
    startHttpClientSpan: (method, url, parent) => startHttpClientSpan(tracer, method, url, parent),
    startMessageSpan: (system, destination, attributes, parent) =>
      startMessageSpan(tracer, system, destination, attributes, parent),
    activeContext() {
      const carrier: Record<string, string> = {};
      KEPT_CONTEXT.inject(context.active(), carrier, defaultTextMapSetter);
      if (!carrier.traceparent) return undefined;
      return carrier.tracestate
        ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
        : { traceparent: carrier.traceparent };
    },
    inRoot: (run) => context.with(ROOT_CONTEXT, run),
    logFields() {
      const spanContext = trace.getSpan(context.active())?.spanContext();
      if (!spanContext || !isSpanContextValid(spanContext)) return {};
      return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
    },
    async register(app, db) {
      if (propagators.unknown.length > 0) {
        app.log.warn(
          { propagators: propagators.unknown },
          'OTEL_PROPAGATORS names propagators this service does not have: left out',
        );
      }
      registerRequestSpans(app, tracer, contextManager);
      observeStatements(tracer, db);
      // What is pending goes out when the app closes (a stop), bounded: a collector that is down holds nothing up.
      app.addHook('onClose', () => tracing.flush(FLUSH_AT_CLOSE_MS));
    },
    async flush(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([provider.forceFlush().catch(() => {}), late]);
      clearTimeout(timer);
    },
  };
  return tracing;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === 'function';
}

/** An execution that answered with errors (GraphQL's `errors`) failed, though it returned. */
function endWith<T>(span: Span, result: T): T {
  const errors = (result as { errors?: readonly unknown[] } | undefined)?.errors;
  if (errors && errors.length > 0) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  return result;
}

/** No message: an error's text may quote what a client sent. */
function endFailed(span: Span): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
