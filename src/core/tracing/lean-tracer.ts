import {
  context as contexts,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
  type TraceState,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import { SamplingDecision, type Sampler, type SamplingResult, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { cleanAttributes, LeanSpan, NO_LINKS, type Scope, type SpanOwner } from './lean-span.ts';
import { LeanSpanContext } from './span-context.ts';
import { nowMillis } from './span-times.ts';
import { followsLocalParent, samplesEveryRoot } from './sampler-from-env.ts';
import { PooledIdGenerator } from './span-ids.ts';
import { DEFAULT_SPAN_LIMITS, type SpanLimits } from './span-limits.ts';

const SAMPLED: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };
const NOT_SAMPLED: SamplingResult = { decision: SamplingDecision.NOT_RECORD };

/** Random ids from a pool (span-ids.ts; never an id of zeros, which W3C trace context forbids). */
const ids = new PooledIdGenerator();

/** A new span's context: its span id drawn now, its trace id its parent's or, with no parent, drawn now too. */
function contextOf(
  parent: SpanContext | undefined,
  traceFlags: number,
  traceState: TraceState | undefined,
): LeanSpanContext {
  let traceId: string;
  let traceBytes: Uint8Array | undefined;
  let traceOffset = 0;
  if (parent === undefined) {
    traceId = ids.generateTraceId();
    traceBytes = ids.bytes;
    traceOffset = ids.offset;
  } else {
    traceId = parent.traceId;
    if (parent instanceof LeanSpanContext) {
      traceBytes = parent.traceBytes;
      traceOffset = parent.traceOffset;
    }
  }
  const spanId = ids.generateSpanId();
  return new LeanSpanContext(traceId, spanId, traceFlags, traceState, traceBytes, traceOffset, ids.bytes, ids.offset);
}

class LeanTracer implements Tracer, SpanOwner {
  readonly scope: Scope;
  readonly resource: Resource;
  readonly processor: SpanProcessor;
  readonly limits: SpanLimits;
  private readonly sampler: Sampler;
  /** The sampler decides a span under one of our spans by that span's decision (sampler-from-env.ts). */
  private readonly parentDecides: boolean;
  /** The sampler keeps every span with no parent, adding nothing (sampler-from-env.ts): not asked for those. */
  private readonly rootKept: boolean;

  constructor(scope: Scope, resource: Resource, processor: SpanProcessor, sampler: Sampler, limits: SpanLimits) {
    this.scope = scope;
    this.resource = resource;
    this.processor = processor;
    this.sampler = sampler;
    this.limits = limits;
    this.parentDecides = followsLocalParent(sampler);
    this.rootKept = samplesEveryRoot(sampler);
  }

  startSpan(name: string, options: SpanOptions = {}, context: Context = contexts.active()): Span {
    const under = options.root ? trace.deleteSpan(context) : context;
    const links = options.links ?? NO_LINKS;
    const span = this.start(name, options.kind ?? SpanKind.INTERNAL, cleanAttributes(options.attributes), links, under);
    if (span instanceof LeanSpan) {
      if (options.startTime !== undefined) span.startAt(options.startTime);
      if (links.length > 0) span.addLinks(links);
      this.processor.onStart(span, under);
    }
    return span;
  }

  /**
   * `startSpan(name, { kind, attributes }, under)` for attributes the caller made for this span alone and
   * checked (taken as they are, not copied): the request's span (request-spans.ts).
   */
  startOwned(name: string, kind: SpanKind, attributes: Attributes, under: Context): Span {
    const span = this.start(name, kind, attributes, NO_LINKS, under);
    if (span instanceof LeanSpan) this.processor.onStart(span, under);
    return span;
  }

  /** A span starting now, not yet handed to the processor's `onStart` (its start time or links may follow). */
  private start(name: string, kind: SpanKind, attributes: Attributes, links: Link[], under: Context): Span {
    if (isTracingSuppressed(under)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = trace.getSpan(under);
    const parent = parentSpan?.spanContext();
    // A parent of this tracer (a span it made, recording or not) has valid ids, drawn here; another's (a remote one) is checked.
    const ours = parent instanceof LeanSpanContext;
    const validParent = parent && (ours || isSpanContextValid(parent)) ? parent : undefined;
    const spanContext = contextOf(validParent, TraceFlags.NONE, validParent?.traceState);
    const traceId = spanContext.traceId;
    const sampling =
      this.parentDecides && ours
        ? parent.traceFlags & TraceFlags.SAMPLED
          ? SAMPLED
          : NOT_SAMPLED
        : this.rootKept && parentSpan === undefined
          ? SAMPLED
          : this.sampler.shouldSample(under, traceId, name, kind, attributes, links);
    if (sampling.traceState) spanContext.traceState = sampling.traceState;
    if (sampling.decision === SamplingDecision.RECORD_AND_SAMPLED) spanContext.traceFlags = TraceFlags.SAMPLED;
    if (sampling.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const span = new LeanSpan(spanContext, name, kind, validParent, nowMillis(), this);
    span.adopt(sampling.attributes ? Object.assign(attributes, cleanAttributes(sampling.attributes)) : attributes);
    return span;
  }

  /** `recordEndedSpan` for a parent of ours (recording or not) under a sampler that follows it; false: not such a case. */
  recordEnded(
    under: Context,
    parent: Span,
    name: string,
    kind: SpanKind,
    startMs: number,
    endMs: number,
    attributes: Attributes,
    failed: boolean,
  ): boolean {
    const context = parent.spanContext();
    if (!this.parentDecides || !(context instanceof LeanSpanContext)) return false;
    if ((context.traceFlags & TraceFlags.SAMPLED) === 0) return true;
    const spanContext = contextOf(context, context.traceFlags, context.traceState);
    const span = new LeanSpan(spanContext, name, kind, context, startMs, this);
    span.adopt(attributes);
    this.processor.onStart(span, under);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.endAt(endMs);
    return true;
  }

  /**
   * `startChildSpan` for a parent of ours under a sampler that follows it; undefined: not such a case. Under
   * a parent not sampled (a share of traces kept, say), a span of no cost beyond its context.
   */
  startChild(under: Context, parent: Span, name: string, kind: SpanKind, attributes: Attributes): Span | undefined {
    const context = parent.spanContext();
    if (!this.parentDecides || !(context instanceof LeanSpanContext)) return undefined;
    const spanContext = contextOf(context, context.traceFlags, context.traceState);
    if ((context.traceFlags & TraceFlags.SAMPLED) === 0) return trace.wrapSpanContext(spanContext);
    const span = new LeanSpan(spanContext, name, kind, context, nowMillis(), this);
    span.adopt(attributes);
    this.processor.onStart(span, under);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const run = rest.pop() as F;
    const [options, context] = rest as [SpanOptions | undefined, Context | undefined];
    const under = context ?? contexts.active();
    const span = this.startSpan(name, options, under);
    return contexts.with(trace.setSpan(under, span), run as (span: Span) => ReturnType<F>, undefined, span);
  }
}

/**
 * A span already over, from `startMs` to `endMs` (epoch milliseconds), under `parent` in `under`, an
 * error if `failed`: what `startSpan(name, { kind, startTime: startMs, attributes }, under)` then
 * `end(endMs)` makes (a statement, reported once it ran: statement-spans.ts). Under a parent of our
 * tracer and a sampler that follows it (the default), made directly: no options, no context lookups, no
 * sampler call, and `attributes` taken as they are (valid, and never changed afterwards: a statement's
 * frozen object, shared by its spans).
 */
export function recordEndedSpan(
  tracer: Tracer,
  under: Context,
  parent: Span,
  name: string,
  kind: SpanKind,
  startMs: number,
  endMs: number,
  attributes: Attributes,
  failed: boolean,
): void {
  if (
    tracer instanceof LeanTracer &&
    tracer.recordEnded(under, parent, name, kind, startMs, endMs, attributes, failed)
  ) {
    return;
  }
  const span = tracer.startSpan(name, { kind, startTime: startMs, attributes }, under);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(endMs);
}

/**
 * A span starting now under the active span of `under`: what `startSpan(name, { kind, attributes }, under)`
 * makes. Under a parent of our tracer and a sampler that follows it (the default), made directly, with
 * `attributes` taken as they are (valid and frozen: one object its spans share, copied if one of them is
 * given another attribute; the encoder writes a frozen object's bytes once).
 */
export function startChildSpan(
  tracer: Tracer,
  under: Context,
  name: string,
  kind: SpanKind,
  attributes: Readonly<Attributes>,
): Span {
  const parent = trace.getSpan(under);
  const direct = parent && tracer instanceof LeanTracer && tracer.startChild(under, parent, name, kind, attributes);
  return direct || tracer.startSpan(name, { kind, attributes }, under);
}

/**
 * The request's server span: what `startSpan(name, { kind: SERVER, attributes }, under)` makes, with
 * `attributes` the caller's own (made for this span, valid: taken as they are, not copied).
 */
export function startServerSpan(tracer: Tracer, name: string, attributes: Attributes, under: Context): Span {
  return tracer instanceof LeanTracer
    ? tracer.startOwned(name, SpanKind.SERVER, attributes, under)
    : tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, under);
}

/**
 * A tracer provider of the OpenTelemetry API whose spans cost little to make: one clock reading a time,
 * no self-observability metrics, attributes checked once. The sampler, the
 * resource and the span processor (the SDK's batch processor and OTLP exporter) are the SDK's own; a
 * span reaches the processor as the SDK's `ReadableSpan`. Why it is written here: README.md here,
 * "Dependencies".
 */
export class LeanTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, LeanTracer>();
  private readonly resource: Resource;
  private readonly processor: SpanProcessor;
  private readonly sampler: Sampler;
  private readonly limits: SpanLimits;

  constructor(
    resource: Resource,
    processor: SpanProcessor,
    sampler: Sampler,
    limits: SpanLimits = DEFAULT_SPAN_LIMITS,
  ) {
    this.resource = resource;
    this.processor = processor;
    this.sampler = sampler;
    this.limits = limits;
  }

  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      const scope: Scope = { name };
      if (version) scope.version = version;
      if (options?.schemaUrl) scope.schemaUrl = options.schemaUrl;
      tracer = new LeanTracer(scope, this.resource, this.processor, this.sampler, this.limits);
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  forceFlush(): Promise<void> {
    return this.processor.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.processor.shutdown();
  }
}
