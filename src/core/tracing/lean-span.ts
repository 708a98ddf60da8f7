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
import { isAttributeValue } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-node';

/** The SDK's default span limits: attributes, events and links past these are counted as dropped. */
const MAX_ATTRIBUTES = 128;
const MAX_EVENTS = 128;
const MAX_LINKS = 128;

export const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];

/** Milliseconds since the epoch, from the monotonic clock (as the SDK does). */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A time given to a span: epoch milliseconds, a `performance.now()` reading (below the time origin), a Date or an HrTime. */
export function msOf(time: TimeInput | undefined): number {
  if (time === undefined) return nowMs();
  if (typeof time === 'number') return time < performance.timeOrigin ? performance.timeOrigin + time : time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1e3 + time[1] / 1e6;
}

function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1e3);
  const nanos = Math.round((ms - seconds * 1e3) * 1e6);
  return nanos < 1e9 ? [seconds, nanos] : [seconds + 1, 0];
}

/** What a span needs of its tracer: where it was made and where it goes when it ends. */
export interface SpanOwner {
  readonly scope: Scope;
  readonly resource: Resource;
  readonly processor: SpanProcessor;
}

export interface Scope {
  name: string;
  version?: string;
  schemaUrl?: string;
}

/**
 * A span of the lean tracer: the API's `Span` for the code that writes it, the SDK's `ReadableSpan` for
 * the span processor and the exporter that read it once it ended. Times are kept as epoch milliseconds
 * and turned into `HrTime` when read.
 */
export class LeanSpan implements Span, ReadableSpan {
  attributes: Attributes = {};
  links: Link[] = NO_LINKS;
  events: TimedEvent[] = NO_EVENTS;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  private attributeCount = 0;
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  private readonly context: SpanContext;
  private readonly startMs: number;
  private endMs = 0;
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

  get resource(): Resource {
    return this.tracer.resource;
  }
  get instrumentationScope(): Scope {
    return this.tracer.scope;
  }
  get startTime(): HrTime {
    return hrTimeOf(this.startMs);
  }
  get endTime(): HrTime {
    return hrTimeOf(this.endMs);
  }
  get duration(): HrTime {
    return hrTimeOf(Math.max(0, this.endMs - this.startMs));
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (value == null || this.ended || !isKey(key) || !isAttributeValue(value)) return this;
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.attributeCount >= MAX_ATTRIBUTES) {
        this.droppedAttributesCount++;
        return this;
      }
      this.attributeCount++;
    }
    this.attributes[key] = Array.isArray(value) ? value.slice() : value;
    return this;
  }

  /** Takes `attributes` (already checked, and the span's own) as its first attributes. */
  adopt(attributes: Attributes): void {
    const count = Object.keys(attributes).length;
    if (count > MAX_ATTRIBUTES) this.setAttributes(attributes);
    else {
      this.attributes = attributes;
      this.attributeCount = count;
    }
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key]!);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    if (this.events.length >= MAX_EVENTS) {
      this.droppedEventsCount++;
      return this;
    }
    const isTime =
      attributesOrTime instanceof Date || Array.isArray(attributesOrTime) || typeof attributesOrTime === 'number';
    const attributes = isTime ? {} : cleanAttributes(attributesOrTime as Attributes | undefined);
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push({
      name,
      attributes,
      time: hrTimeOf(msOf(isTime ? (attributesOrTime as TimeInput) : time)),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    return this.addLinks([link]);
  }

  addLinks(links: Link[]): this {
    if (this.ended) return this;
    for (const link of links) {
      if (this.links.length >= MAX_LINKS) {
        this.droppedLinksCount++;
        continue;
      }
      if (this.links === NO_LINKS) this.links = [];
      this.links.push({ context: link.context, attributes: cleanAttributes(link.attributes) });
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
    this.endMs = endTime === undefined ? nowMs() : msOf(endTime);
    this.ended = true;
    this.tracer.processor.onEnd(this);
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      if (exception.name ?? exception.code) attributes['exception.type'] = String(exception.name ?? exception.code);
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }
}

/** A key a span keeps: not empty, and not one that would reach the attributes object's prototype. */
function isKey(key: string): boolean {
  return key.length > 0 && key !== '__proto__';
}

/** The valid attributes of `attributes`, as the SDK keeps them: no null or undefined value, arrays copied. */
export function cleanAttributes(attributes: Attributes | undefined): Attributes {
  const clean: Attributes = {};
  if (!attributes) return clean;
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value = attributes[key];
    if (value != null && isKey(key) && isAttributeValue(value))
      clean[key] = Array.isArray(value) ? value.slice() : value;
  }
  return clean;
}
