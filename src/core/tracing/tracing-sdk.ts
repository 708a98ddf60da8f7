import {
  context,
  defaultTextMapSetter,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { startHttpClientSpan } from './client-spans.ts';
import { cleanAttributes } from './lean-span.ts';
import { LeanTracerProvider, startChildSpan } from './lean-tracer.ts';
import { enterOperation, operationParent } from './linked-context.ts';
import { KEPT_CONTEXT, propagatorsFromEnv } from './propagators-from-env.ts';
import { samplerFromEnv } from './sampler-from-env.ts';
import { spanLimitsFromEnv } from './span-limits.ts';
import { startMessageSpan } from './message-spans.ts';
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

/**
 * The exporter of the protocol, only its code loaded: OTLP/protobuf (the default) with our encoding
 * (otlp-exporter.ts), OTLP/JSON the SDK's. Both read the other `OTEL_EXPORTER_OTLP_*` settings (headers,
 * timeout, compression) through the SDK's exporter base.
 */
async function exporterFor(settings: SdkSettings): Promise<SpanExporter> {
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: settings.url });
  }
  const { OtlpProtobufSpanExporter } = await import('./otlp-exporter.ts');
  return new OtlpProtobufSpanExporter(settings.url);
}

/**
 * Tracing on: our lean tracer provider (lean-tracer.ts) registered as the process's global one, with the
 * SDK's propagators `OTEL_PROPAGATORS` names (W3C trace context and baggage by default;
 * propagators-from-env.ts), its AsyncLocalStorage context manager, its sampler of
 * `OTEL_TRACES_SAMPLER` (`parentbased_always_on` by default; sampler-from-env.ts) and its batch span
 * processor: spans are exported in the background, in batches, so a collector that is slow, down or never
 * answers costs a request nothing (spans past the processor's queue are dropped, not waited for).
 */
export async function createTracing(settings: SdkSettings): Promise<Tracing> {
  // Precedence of the specification: OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then ours.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'content-service' })
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(settings.serviceName ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }) : null);
  const provider = new LeanTracerProvider(
    resource,
    new BatchSpanProcessor(await exporterFor(settings)),
    samplerFromEnv(),
    spanLimitsFromEnv(),
  );
  trace.setGlobalTracerProvider(provider);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const propagators = propagatorsFromEnv();
  propagation.setGlobalPropagator(propagators.propagator);
  const tracer = trace.getTracer(TRACER_NAME);

  const tracing: Tracing = {
    wrap(name, attributes, run) {
      // Checked once: one frozen object every call's span shares.
      const shared = Object.freeze(cleanAttributes(attributes));
      return (...args) => {
        const under = contextManager.active();
        const span = startChildSpan(tracer, operationParent(under), name, SpanKind.INTERNAL, shared);
        const scope = enterOperation(contextManager, under, span);
        let result;
        try {
          result = run(...args);
        } catch (error) {
          scope.returned();
          scope.settled();
          endFailed(span);
          throw error;
        }
        scope.returned();
        if (!isPromise(result)) {
          scope.settled();
          return endWith(span, result);
        }
        return result.then(
          (value) => {
            scope.settled();
            return endWith(span, value);
          },
          (error: unknown) => {
            scope.settled();
            endFailed(span);
            throw error;
          },
        ) as typeof result;
      };
    },
    startHttpClientSpan: (method, url, parent) => startHttpClientSpan(tracer, method, url, parent),
    startMessageSpan: (system, destination, attributes, parent) =>
      startMessageSpan(tracer, system, destination, attributes, parent),
    activeContext() {
      const carrier: Record<string, string> = {};
      KEPT_CONTEXT.inject(contextManager.active(), carrier, defaultTextMapSetter);
      if (!carrier.traceparent) return undefined;
      return carrier.tracestate
        ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
        : { traceparent: carrier.traceparent };
    },
    inRoot: (run) => context.with(ROOT_CONTEXT, run),
    logFields() {
      const spanContext = trace.getSpan(contextManager.active())?.spanContext();
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
      observeStatements(tracer, contextManager, db);
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
