/**
 * When a failed delivery is tried again: WEBHOOK_RETRY_SCHEDULE's waits (`5s,5m,30m,2h,...`), each
 * with ±20 % jitter so that the retries of many deliveries failed at once do not arrive together, and
 * never before a `Retry-After` the receiver sent with a 429 or 503.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
export const JITTER = 0.2;

/** The waits in milliseconds; throws on a malformed item (the config schema refuses those first). */
export function parseRetrySchedule(text: string): number[] {
  return text.split(',').map((raw) => {
    const match = DURATION.exec(raw.trim());
    if (!match) throw new Error(`WEBHOOK_RETRY_SCHEDULE: "${raw.trim()}" is not a duration such as 5s, 30m or 2h`);
    return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  });
}

/** `wait` ± 20 %, uniformly; `random` is for tests. */
export function withJitter(wait: number, random: () => number = Math.random): number {
  return Math.round(wait * (1 - JITTER + 2 * JITTER * random()));
}

/** A `Retry-After` value (delay-seconds or an HTTP-date) as the earliest time in ms, or undefined. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return nowMs + Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date;
}

/**
 * The time of the next attempt after failed attempt number `attempts` (1-based), or undefined when
 * the schedule is spent (the delivery is dead). `retryAfter` (ms) only ever pushes it later.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempts: number,
  nowMs: number,
  retryAfter?: number,
  random?: () => number,
): number | undefined {
  const wait = schedule[attempts - 1];
  if (wait === undefined) return undefined;
  const at = nowMs + withJitter(wait, random);
  return retryAfter !== undefined && retryAfter > at ? retryAfter : at;
}
