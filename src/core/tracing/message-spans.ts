import { propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { contextUnder } from './client-spans.ts';
import type { MessageSpan, SpanAttributes, TraceContext } from './tracing-types.ts';

/**
 * A producer span for one published message, as the messaging conventions name it: `send {destination}`,
 * `messaging.system`, `messaging.destination.name`, `messaging.operation.type` `send` (the attribute
 * names are written out: they are still in the conventions' incubating set, which the stable package
 * does not export). Its context goes with the message as `traceparent` (and `tracestate`) headers, so a
 * receiver's work joins the trace; with no separate `create` span, the send span is the producer.
 */
export function startMessageSpan(
  tracer: Tracer,
  system: string,
  destination: string,
  attributes: SpanAttributes,
  parent?: TraceContext,
): MessageSpan {
  const under = contextUnder(parent);
  const span = tracer.startSpan(
    `send ${destination}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': system,
        'messaging.destination.name': destination,
        'messaging.operation.type': 'send',
        ...attributes,
      },
    },
    under,
  );
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(under, span), headers);
  return {
    headers,
    end(error) {
      if (error !== undefined) {
        span.setAttribute(ATTR_ERROR_TYPE, error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
