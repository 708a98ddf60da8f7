import type { HrTime } from '@opentelemetry/api';

/** Protobuf wire types. */
export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;

/**
 * A protobuf writer over one growing buffer, in a single pass: a nested message's length is reserved as
 * one byte and, when the message turns out longer than 127 bytes, what follows is moved up to make room
 * for its varint (so every length is written in its shortest form, as the SDK's serializer writes it).
 */
export class Writer {
  buf: Buffer;
  pos = 0;

  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }

  room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  tag(field: number, wire: number): void {
    const tag = (field << 3) | wire;
    if (tag < 0x80) {
      this.room(1);
      this.buf[this.pos++] = tag;
    } else this.varint(tag);
  }

  /** A non-negative integer below 2^53. */
  varint(value: number): void {
    this.room(10);
    const buf = this.buf;
    while (value > 0x7f) {
      buf[this.pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    buf[this.pos++] = value;
  }

  /** An int64 beyond the safe integers or below zero (negatives in two's complement, ten bytes). */
  wide(value: number): void {
    this.room(10);
    let wide = BigInt.asUintN(64, BigInt(value));
    while (wide > 0x7fn) {
      this.buf[this.pos++] = Number(wide & 0x7fn) | 0x80;
      wide >>= 7n;
    }
    this.buf[this.pos++] = Number(wide);
  }

  fixed32(value: number): void {
    this.room(4);
    this.pos = this.buf.writeUInt32LE(value >>> 0, this.pos);
  }

  double(value: number): void {
    this.room(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  /** Nanoseconds since the epoch of an HrTime, as a fixed64, exactly (no float above 2^53 on the way). */
  time([seconds, nanos]: HrTime): void {
    this.nanos(seconds, nanos);
  }

  /** Epoch milliseconds as `time` writes their HrTime (the SDK's `millisToHrTime`), without making one. */
  millis(epochMillis: number): void {
    this.nanos(Math.trunc(epochMillis / 1000), Math.round((epochMillis % 1000) * 1e6));
  }

  /** `seconds * 1e9` of the last seconds written, as `high * 2^32 + low`: a batch's times share their second. */
  private second = Number.NaN;
  private secondLow = 0;
  private secondHigh = 0;

  /** `seconds` and `nanos` since the epoch as nanoseconds, a fixed64. */
  private nanos(seconds: number, nanos: number): void {
    if (seconds !== this.second) {
      // seconds * 1e9 = high * 2^32 + low, computed from seconds split at 2^16 so every product is exact.
      const lowPart = (seconds % 0x10000) * 1e9;
      const highPart = Math.floor(seconds / 0x10000) * 1e9; // to be multiplied by 2^16
      const low = (lowPart % 0x100000000) + (highPart % 0x10000) * 0x10000;
      this.secondHigh =
        Math.floor(lowPart / 0x100000000) + Math.floor(highPart / 0x10000) + Math.floor(low / 0x100000000);
      this.secondLow = low % 0x100000000;
      this.second = seconds;
    }
    let lo = this.secondLow + nanos;
    let high = this.secondHigh;
    // nanos is below 2^32 (under 1e9 but for rounding): one carry at most.
    if (lo >= 0x100000000) {
      lo -= 0x100000000;
      high += 1;
    }
    this.room(8);
    const buf = this.buf;
    const at = this.pos;
    // Byte by byte: a typed array keeps the low 8 bits of each (Buffer's writeUInt32LE checks its range first).
    buf[at] = lo;
    buf[at + 1] = lo >>> 8;
    buf[at + 2] = lo >>> 16;
    buf[at + 3] = lo >>> 24;
    buf[at + 4] = high;
    buf[at + 5] = high >>> 8;
    buf[at + 6] = high >>> 16;
    buf[at + 7] = high >>> 24;
    this.pos = at + 8;
  }

  /** Starts a length-delimited field's content (its tag already written): returns where its length goes. */
  begin(): number {
    this.room(1);
    return this.pos++;
  }

  /** Ends what `begin` started: writes its length there, moving the content up when the length needs more bytes. */
  end(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    const extra = (length < 0x4000 ? 2 : length < 0x200000 ? 3 : length < 0x10000000 ? 4 : 5) - 1;
    this.room(extra);
    this.buf.copyWithin(at + 1 + extra, at + 1, this.pos);
    this.pos += extra;
    let value = length;
    let write = at;
    while (value > 0x7f) {
      this.buf[write++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buf[write] = value;
  }

  string(field: number, text: string): void {
    this.tag(field, LEN);
    const at = this.begin();
    const length = text.length;
    this.room(length * 3);
    const buf = this.buf;
    let pos = this.pos;
    // ASCII byte by byte (most keys, names and statements): a native write per string costs more.
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) {
        pos = this.pos + buf.write(text, this.pos, 'utf8');
        break;
      }
      buf[pos++] = code;
    }
    this.pos = pos;
    this.end(at);
  }

  /** `bytes` as they are (a part written before). */
  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /**
   * `string(field, text)` for a text written again and again (a span's name, an attribute's key): its
   * bytes kept in `kept` (one map a field, a bounded number of texts) and copied.
   */
  keptString(field: number, text: string, kept: Map<string, Uint8Array>): void {
    const bytes = kept.get(text);
    if (bytes === undefined) {
      const at = this.pos;
      this.string(field, text);
      if (text.length > MAX_KEPT_LENGTH) return;
      if (kept.size >= MAX_KEPT_STRINGS) kept.clear();
      kept.set(text, Buffer.from(this.buf.subarray(at, this.pos)));
      return;
    }
    this.bytes(bytes);
  }

  /** `length` bytes of `from` at `offset` as a bytes field (an id drawn as bytes: span-ids.ts). */
  id(field: number, from: Uint8Array, offset: number, length: number): void {
    this.tag(field, LEN);
    this.room(length + 1);
    const buf = this.buf;
    const at = this.pos + 1;
    buf[at - 1] = length;
    for (let i = 0; i < length; i++) buf[at + i] = from[offset + i]!;
    this.pos = at + length;
  }

  /** Bytes given as hex (trace and span ids). */
  hex(field: number, hex: string): void {
    this.tag(field, LEN);
    const length = hex.length >>> 1;
    this.room(length + 1);
    const buf = this.buf;
    const at = this.pos + 1;
    // Pair by pair in JavaScript (a native write is a call dearer than the 8 or 16 bytes of an id); on a
    // character that is not hex, the native write, which stops there.
    for (let i = 0; i < length; i++) {
      const high = HEX_DIGIT[hex.charCodeAt(2 * i)] ?? -1;
      const low = HEX_DIGIT[hex.charCodeAt(2 * i + 1)] ?? -1;
      if ((high | low) < 0) {
        const written = buf.write(hex, at, 'hex');
        buf[at - 1] = written;
        this.pos = at + written;
        return;
      }
      buf[at + i] = (high << 4) | low;
    }
    buf[at - 1] = length;
    this.pos = at + length;
  }
}

/** Texts kept a map (`keptString`): names and keys come from the code, but a caller's span name could be anything. */
const MAX_KEPT_STRINGS = 1000;
const MAX_KEPT_LENGTH = 200;

/** The value of each hex digit by its character code; -1 for any other character below 128. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  HEX_DIGIT['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_DIGIT['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}
