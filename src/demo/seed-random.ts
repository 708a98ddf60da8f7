/**
 * Deterministic randomness for the seed generator. Every generated row draws from its own small
 * PRNG keyed by (seed, table, row index), so a row's content depends only on those three: batch
 * sizes, the dialect and the other tables' counts never change it.
 */
export type Random = () => number;

/** mulberry32: a tiny, fast 32-bit generator with good enough statistics for fake data. */
export function mulberry32(state: number): Random {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes integers into one well-spread 32-bit state (murmur3's finaliser after each step). */
export function mixKey(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** Distinct salts so the users stream and the products stream of one seed never coincide. */
export const STREAM = {
  users: 1,
  posts: 2,
  comments: 3,
  likes: 4,
  products: 5,
  orders: 6,
} as const;

export function rowRandom(seed: number, stream: number, index: number): Random {
  return mulberry32(mixKey(seed, stream, index));
}

/** An integer in [min, max], both included. */
export function intBetween(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}
