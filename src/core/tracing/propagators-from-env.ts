import type { TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * How an event keeps its writer's trace context (`events.traceparent`, `events.tracestate`) and reads it
 * back: W3C trace context always, whatever `OTEL_PROPAGATORS` puts on the wire.
 */
export const KEPT_CONTEXT: TextMapPropagator = new W3CTraceContextPropagator();

/** The propagators of the specification's list this service has. */
const KNOWN: Record<string, () => TextMapPropagator> = {
  tracecontext: () => new W3CTraceContextPropagator(),
  baggage: () => new W3CBaggagePropagator(),
};

export interface ChosenPropagators {
  propagator: TextMapPropagator;
  /** Names asked for that this service does not have (`b3`, `jaeger`...): left out, to be warned of. */
  unknown: string[];
}

/**
 * The propagators `OTEL_PROPAGATORS` names, comma-separated, in its order: `tracecontext,baggage` when
 * unset (the specification's default), none at all with `none` (incoming trace headers are then ignored
 * and none are sent).
 */
export function propagatorsFromEnv(env: NodeJS.ProcessEnv = process.env): ChosenPropagators {
  const names = (env.OTEL_PROPAGATORS ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const chosen = names.length === 0 ? ['tracecontext', 'baggage'] : names.includes('none') ? [] : [...new Set(names)];
  const propagators: TextMapPropagator[] = [];
  const unknown: string[] = [];
  for (const name of chosen) {
    const make = Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
    if (make) propagators.push(make());
    else unknown.push(name);
  }
  return { propagator: new CompositePropagator({ propagators }), unknown };
}
