import type { HrTime, TimeInput } from '@opentelemetry/api';
import { millisToHrTime, timeInputToHrTime } from '@opentelemetry/core';

/*
 * A span's times as the lean span keeps them (lean-span.ts): epoch milliseconds where that is what they
 * are, an HrTime only where one was given; the HrTime the SDK would make (`millisToHrTime`) is made when
 * read, and the encoder writes the milliseconds (protobuf-writer.ts, `millis`).
 */

/** The process's time origin, read once (constant for the process; the getter is a call). */
const TIME_ORIGIN = performance.timeOrigin;

/** Now, in epoch milliseconds, from the monotonic clock in one reading (the SDK's own span takes two clocks). */
export function nowMillis(): number {
  return TIME_ORIGIN + performance.now();
}

/**
 * A given time as the SDK reads it (`timeInputToHrTime`), kept as epoch milliseconds when that is what
 * it is (a number past half the time origin, or a `Date`: the SDK turns those into HrTime by
 * `millisToHrTime`, which the span's getters and the encoder do later), else as its HrTime (`NaN` ms).
 */
export function given(time: TimeInput): [millis: number, hr: HrTime | undefined] {
  if (typeof time === 'number' && time >= TIME_ORIGIN / 2) return [time, undefined];
  if (time instanceof Date) return [time.getTime(), undefined];
  return [Number.NaN, timeInputToHrTime(time)];
}

/** An event's time: the given one as the SDK reads it, else now. */
export function timeOfEvent(time: TimeInput | undefined): HrTime {
  return time === undefined ? millisToHrTime(nowMillis()) : timeInputToHrTime(time);
}

/** The HrTime of a time kept as `millis`, or the one given. */
export function millisOr(millis: number, hr: HrTime | undefined): HrTime {
  return hr ?? millisToHrTime(millis);
}
