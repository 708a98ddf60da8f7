import {
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
  type Span,
} from '@opentelemetry/api';
import { hrTimeDuration, isAttributeValue, millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  ATTR_EXCEPTION_MESSAGE,
  ATTR_EXCEPTION_STACKTRACE,
  ATTR_EXCEPTION_TYPE,
} from '@opentelemetry/semantic-conventions';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-node';
import { limited, truncated, type SpanLimits } from './span-limits.ts';
import { given, millisOr, nowMillis, timeOfEvent } from './span-times.ts';

export const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];
/** Shared, never changed: `setStatus` and `end` replace them (two objects fewer a span). */
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NOT_ENDED: HrTime = Object.freeze([0, 0]) as unknown as HrTime;

/** What a span needs of its tracer: where it was made, how much it keeps, and where it goes when it ends. */
export interface SpanOwner {
  readonly scope: Scope;
  readonly resource: Resource;
  readonly processor: SpanProcessor;
  readonly limits: SpanLimits;
}

export interface Scope {
  name: string;
  version?: string;
  schemaUrl?: string;
}

/**
 * A span of the lean tracer: the API's `Span` for the code that writes it, the SDK's `ReadableSpan` for
 * the span processor and the exporter that read it once it ended.
 */
export class LeanSpan implements Span, ReadableSpan {
  attributes: Attributes = {};
  links: Link[] = NO_LINKS;
  events: TimedEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  private attributeCount = 0;
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  private readonly context: SpanContext;
  /**
   * The start and the end in epoch milliseconds, as taken (one clock reading, or a statement's times):
   * the HrTime of `startTime` and `endTime` is made from them when read (the SDK's `millisToHrTime`), and
   * the encoder writes them without one (otlp-protobuf.ts). `NaN` when the time was given as an HrTime
   * (kept in `startHr`/`endHr`); `endMs` is `NaN` until the span ends.
   */
  startMs: number;
  endMs = Number.NaN;
  private startHr: HrTime | undefined = undefined;
  private endHr: HrTime | undefined = undefined;
  private readonly tracer: SpanOwner;

  constructor(
    context: SpanContext,
    name: string,
    kind: SpanKind,
    parent: SpanContext | undefined,
    startMs: number,
    tracer: SpanOwner,
  ) {
    this.context = context;
    this.name = name;
    this.kind = kind;
    this.parentSpanContext = parent;
    this.startMs = startMs;
    this.tracer = tracer;
  }

  /** Starts the span at a time given by its maker (`startSpan`'s `startTime`), read as the SDK reads it. */
  startAt(time: TimeInput): void {
    [this.startMs, this.startHr] = given(time);
  }

  get startTime(): HrTime {
    return this.startHr ?? millisToHrTime(this.startMs);
  }
  get endTime(): HrTime {
    return this.endHr ?? (this.ended ? millisToHrTime(this.endMs) : NOT_ENDED);
  }

  get resource(): Resource {
    return this.tracer.resource;
  }
  get instrumentationScope(): Scope {
    return this.tracer.scope;
  }
  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (value == null || this.ended || !isKey(key) || !isAttributeValue(value)) return this;
    const limits = this.tracer.limits;
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.attributeCount >= limits.attributeCount) {
        this.droppedAttributesCount++;
        return this;
      }
      this.attributeCount++;
    }
    // A shared frozen object (`adopt`) is copied before its first change.
    if (Object.isFrozen(this.attributes)) this.attributes = { ...this.attributes };
    this.attributes[key] = truncated(Array.isArray(value) ? value.slice() : value, limits.attributeValueLength);
    return this;
  }

  /** Takes `attributes` (already checked, and the span's own) as its first attributes; copied within limits set lower. */
  adopt(attributes: Attributes): void {
    const count = keyCount(attributes);
    const limits = this.tracer.limits;
    if (count > limits.attributeCount || limits.attributeValueLength !== Infinity) this.setAttributes(attributes);
    else {
      this.attributes = attributes;
      this.attributeCount = count;
    }
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key]!);
    return this;
  }

  /** As the SDK: past the limit, the oldest event gives way (counted as dropped). */
  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const limits = this.tracer.limits;
    if (limits.eventCount === 0) {
      this.droppedEventsCount++;
      return this;
    }
    if (this.events.length >= limits.eventCount) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    const isTime =
      attributesOrTime instanceof Date || Array.isArray(attributesOrTime) || typeof attributesOrTime === 'number';
    const [attributes, dropped] = limited(
      isTime ? {} : cleanAttributes(attributesOrTime as Attributes | undefined),
      limits.attributePerEventCount,
      limits.attributeValueLength,
    );
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push({
      name,
      attributes,
      time: timeOfEvent(isTime ? (attributesOrTime as TimeInput) : time),
      droppedAttributesCount: dropped,
    });
    return this;
  }

  addLink(link: Link): this {
    return this.addLinks([link]);
  }

  /** As the SDK: past the limit, the oldest link gives way (counted as dropped). */
  addLinks(links: Link[]): this {
    if (this.ended) return this;
    const limits = this.tracer.limits;
    for (const link of links) {
      if (limits.linkCount === 0) {
        this.droppedLinksCount++;
        continue;
      }
      if (this.links === NO_LINKS) this.links = [];
      else if (this.links.length >= limits.linkCount) {
        this.links.shift();
        this.droppedLinksCount++;
      }
      const [attributes, dropped] = limited(
        cleanAttributes(link.attributes),
        limits.attributePerLinkCount,
        limits.attributeValueLength,
      );
      const kept: Link = { context: link.context };
      if (Object.keys(attributes).length > 0) kept.attributes = attributes;
      if (dropped > 0) kept.droppedAttributesCount = dropped;
      this.links.push(kept);
    }
    return this;
  }

  /** As the SDK: an ended span's status, or an OK one, no longer changes; UNSET changes nothing. */
  setStatus(status: SpanStatus): this {
    if (this.ended || this.status.code === SpanStatusCode.OK || status.code === SpanStatusCode.UNSET) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    if (endTime === undefined) return this.endAt(nowMillis());
    [this.endMs, this.endHr] = given(endTime);
    this.close();
  }

  /** `end` at a time in epoch milliseconds (a statement's end, reported once it ran). */
  endAt(endMs: number): void {
    if (this.ended) return;
    this.endMs = endMs;
    this.close();
  }

  private close(): void {
    // As the SDK: an end before the start is taken as the start.
    if (this.startHr === undefined && this.endHr === undefined) {
      if (this.endMs < this.startMs) this.endMs = this.startMs;
    } else if (hrTimeDuration(this.startTime, millisOr(this.endMs, this.endHr))[0] < 0) {
      [this.endMs, this.endHr] = [this.startMs, this.startTime];
    }
    this.ended = true;
    this.tracer.processor.onEnd(this);
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes[ATTR_EXCEPTION_MESSAGE] = exception;
    else {
      if (exception.name ?? exception.code) attributes[ATTR_EXCEPTION_TYPE] = String(exception.name ?? exception.code);
      if (exception.message) attributes[ATTR_EXCEPTION_MESSAGE] = exception.message;
      if (exception.stack) attributes[ATTR_EXCEPTION_STACKTRACE] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }
}

/** How many keys `attributes` has, counted without making their array (`Object.keys`): a plain object's own. */
function keyCount(attributes: Attributes): number {
  let count = 0;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- only the keys' number is wanted
  for (const _key in attributes) count++;
  return count;
}

/** A key a span keeps: not empty, and not one that would reach the attributes object's prototype. */
function isKey(key: string): boolean {
  return key.length > 0 && key !== '__proto__';
}

/**
 * The valid attributes of `attributes`, as the SDK keeps them: no null or undefined value, arrays copied.
 * One clone (V8 copies a plain object's own properties in one step, cheaper than adding them one by
 * one), then only what is not kept is removed: in practice nothing.
 */
export function cleanAttributes(attributes: Attributes | undefined): Attributes {
  if (!attributes) return {};
  const clean: Attributes = { ...attributes };
  for (const key in clean) {
    const value = clean[key];
    if (value == null || !isKey(key) || !isAttributeValue(value)) delete clean[key];
    else if (Array.isArray(value)) clean[key] = value.slice();
  }
  return clean;
}
