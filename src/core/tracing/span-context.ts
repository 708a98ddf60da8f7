import type { SpanContext, TraceState } from '@opentelemetry/api';

/**
 * A lean span's `SpanContext`, with where the bytes of its ids were drawn (span-ids.ts), so the encoder
 * copies them rather than reading the hex back: `traceBytes` is undefined when the trace id came from
 * elsewhere (a caller's `traceparent`). `traceState` is undefined when there is none.
 */
export class LeanSpanContext implements SpanContext {
  readonly traceId: string;
  readonly spanId: string;
  traceFlags: number;
  traceState: TraceState | undefined;
  readonly traceBytes: Uint8Array | undefined;
  readonly traceOffset: number;
  readonly spanBytes: Uint8Array;
  readonly spanOffset: number;

  constructor(
    traceId: string,
    spanId: string,
    traceFlags: number,
    traceState: TraceState | undefined,
    traceBytes: Uint8Array | undefined,
    traceOffset: number,
    spanBytes: Uint8Array,
    spanOffset: number,
  ) {
    this.traceId = traceId;
    this.spanId = spanId;
    this.traceFlags = traceFlags;
    this.traceState = traceState;
    this.traceBytes = traceBytes;
    this.traceOffset = traceOffset;
    this.spanBytes = spanBytes;
    this.spanOffset = spanOffset;
  }
}
