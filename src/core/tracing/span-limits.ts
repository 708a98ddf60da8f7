import type { Attributes, AttributeValue } from '@opentelemetry/api';

/** How much a span keeps: the SDK's span limits (its `SpanLimits`, every one of them set). */
export interface SpanLimits {
  attributeCount: number;
  /** Characters of a string value (or of each string of an array) kept; Infinity: all. */
  attributeValueLength: number;
  eventCount: number;
  linkCount: number;
  attributePerEventCount: number;
  attributePerLinkCount: number;
}

/** The SDK's defaults: 128 of each, values whole. */
export const DEFAULT_SPAN_LIMITS: Readonly<SpanLimits> = Object.freeze({
  attributeCount: 128,
  attributeValueLength: Infinity,
  eventCount: 128,
  linkCount: 128,
  attributePerEventCount: 128,
  attributePerLinkCount: 128,
});

/**
 * A non-negative number set in `name`; undefined when unset, empty or not such a number (then the default
 * holds). Where the SDK takes a negative one as given (a count of -1 keeping nothing), the default holds here.
 */
function numberIn(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The limits the specification's variables set, with the SDK's precedence: `OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT`
 * then the general `OTEL_ATTRIBUTE_COUNT_LIMIT` (and likewise `..._VALUE_LENGTH_LIMIT`), then the default;
 * `OTEL_SPAN_EVENT_COUNT_LIMIT`, `OTEL_SPAN_LINK_COUNT_LIMIT`, `OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT`
 * and `OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT` alone. Read once, when tracing starts.
 */
export function spanLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): SpanLimits {
  const d = DEFAULT_SPAN_LIMITS;
  return {
    attributeCount:
      numberIn(env, 'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ??
      numberIn(env, 'OTEL_ATTRIBUTE_COUNT_LIMIT') ??
      d.attributeCount,
    attributeValueLength:
      numberIn(env, 'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ??
      numberIn(env, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') ??
      d.attributeValueLength,
    eventCount: numberIn(env, 'OTEL_SPAN_EVENT_COUNT_LIMIT') ?? d.eventCount,
    linkCount: numberIn(env, 'OTEL_SPAN_LINK_COUNT_LIMIT') ?? d.linkCount,
    attributePerEventCount: numberIn(env, 'OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT') ?? d.attributePerEventCount,
    attributePerLinkCount: numberIn(env, 'OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT') ?? d.attributePerLinkCount,
  };
}

/** `value` with each string cut to `length` characters, as the SDK cuts them (a length of 0 or less cuts nothing). */
export function truncated(value: AttributeValue, length: number): AttributeValue {
  if (length <= 0 || length === Infinity) return value;
  if (typeof value === 'string') return value.length > length ? value.substring(0, length) : value;
  if (Array.isArray(value)) {
    return value.map((item: unknown) =>
      typeof item === 'string' && item.length > length ? item.substring(0, length) : item,
    ) as AttributeValue;
  }
  return value;
}

/** The first `count` of `attributes` (already valid), their values cut to `length`, and how many were left out. */
export function limited(attributes: Attributes, count: number, length: number): [Attributes, number] {
  const kept: Attributes = {};
  let taken = 0;
  let dropped = 0;
  for (const key in attributes) {
    if (taken >= count) dropped++;
    else {
      kept[key] = truncated(attributes[key]!, length);
      taken++;
    }
  }
  return [kept, dropped];
}
