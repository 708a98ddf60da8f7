/**
 * Money is stored as integer cents and served as a JSON number with at most two decimals.
 * Prices arrive as JSON numbers (binary floats), so every conversion goes through cents here.
 */

/** The highest price accepted on write: far below the point where cents stop being exact integers. */
export const MAX_PRICE = 100_000_000;

/** The range and the cents of a price, as the body, the list's filters and the documents all state them. */
export const PRICE_BOUNDS = { minimum: 0, maximum: MAX_PRICE, multipleOf: 0.01 } as const;

/**
 * True when a price has at most two decimals. `multipleOf: 0.01` fails on floats (0.07 % 0.01 ≠ 0);
 * instead, the nearest cent divided by 100 must give back the very same double, which holds
 * exactly for every decimal with two places and for nothing else.
 */
export function hasAtMostTwoDecimals(price: number): boolean {
  return Number.isFinite(price) && Math.round(price * 100) / 100 === price;
}

/** Cents of a price already known to have at most two decimals. */
export function centsOf(price: number): number {
  return Math.round(price * 100);
}

export function priceOf(cents: number): number {
  return cents / 100;
}

const clampCents = (cents: number) => Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, cents));

/** `price >= min` in cents: an exact cent value is kept, anything between cents rounds up. */
export function lowerBoundCents(min: number): number {
  if (hasAtMostTwoDecimals(min)) return clampCents(centsOf(min));
  return clampCents(Math.ceil(min * 100));
}

/** `price <= max` in cents: an exact cent value is kept, anything between cents rounds down. */
export function upperBoundCents(max: number): number {
  if (hasAtMostTwoDecimals(max)) return clampCents(centsOf(max));
  return clampCents(Math.floor(max * 100));
}
