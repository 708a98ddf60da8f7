import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace-node';

const POOL_BYTES = 4096;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/**
 * Trace and span ids cut from a pool of random hex (`crypto.randomFillSync`, 4 KiB at a time: 256 span
 * ids per fill): one string slice an id. The SDK's `RandomIdGenerator` writes each id from `Math.random`
 * into a buffer and turns it into hex, ~0.5–0.7 µs an id in a traced request, four ids a traced W1
 * answer (README.md here, "Dependencies"). Never an id of zeros, which W3C trace context forbids.
 * The last id's bytes stay readable where they were drawn (`bytes` at `offset`: a new buffer each fill,
 * never written again), so the encoder copies them instead of reading the hex back.
 */
export class PooledIdGenerator implements IdGenerator {
  /** The pool the last id was cut from, as bytes. */
  bytes = Buffer.allocUnsafe(0);
  /** Where the last id's bytes start in `bytes`. */
  offset = 0;
  private pool = '';
  private at = 0;
  private readonly fill: (bytes: Buffer) => void;

  constructor(fill: (bytes: Buffer) => void = randomFillSync) {
    this.fill = fill;
  }

  generateTraceId(): string {
    let id = this.take(32);
    while (id === ZERO_TRACE_ID) id = this.take(32);
    return id;
  }

  generateSpanId(): string {
    let id = this.take(16);
    while (id === ZERO_SPAN_ID) id = this.take(16);
    return id;
  }

  private take(chars: number): string {
    if (this.at + chars > this.pool.length) {
      this.bytes = Buffer.allocUnsafe(POOL_BYTES);
      this.fill(this.bytes);
      this.pool = this.bytes.toString('hex');
      this.at = 0;
    }
    this.offset = this.at >>> 1;
    const id = this.pool.slice(this.at, this.at + chars);
    this.at += chars;
    return id;
  }
}
