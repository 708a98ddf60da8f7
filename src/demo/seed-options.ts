import { parseArgs } from 'node:util';

/** What `seed` generates. Counts of 0 skip a table (e.g. `--users 0 --orders 0 --products 1000000`). */
export interface SeedOptions {
  users: number;
  postsPerUser: number;
  commentsPerPost: number;
  likesPerComment: number;
  products: number;
  categories: number;
  orders: number;
  seed: number;
}

/** The standard benchmark data set. */
export const DEFAULT_SEED_OPTIONS: SeedOptions = {
  users: 1_000,
  postsPerUser: 10,
  commentsPerPost: 5,
  likesPerComment: 2,
  products: 10_000,
  categories: 20,
  orders: 2_000,
  seed: 42,
};

/** Above this a table's ids no longer fit comfortably in memory; nobody needs more from a seed. */
const MAX_ROWS = 20_000_000;

const FLAGS = {
  users: ['users', 'users to create'],
  postsPerUser: ['posts-per-user', 'posts per user'],
  commentsPerPost: ['comments-per-post', 'comments per post (random authors)'],
  likesPerComment: ['likes-per-comment', 'likes per comment, by distinct users (capped at --users)'],
  products: ['products', 'products to create'],
  categories: ['categories', 'product categories (category-01, category-02, ...)'],
  orders: ['orders', 'orders of seeded users for seeded products, 1-3 items each'],
  seed: ['seed', 'PRNG seed: the same seed gives the same rows'],
} as const satisfies Record<keyof SeedOptions, readonly [string, string]>;

export const SEED_USAGE = `Usage: npm run seed -- [options]

Generates a large, deterministic data set into DATABASE_URL (migrations are applied first).

Options (non-negative integers; 0 skips a table):
${(Object.keys(FLAGS) as (keyof SeedOptions)[])
  .map((key) => `  ${`--${FLAGS[key][0]} N`.padEnd(24)}${FLAGS[key][1]} (default ${DEFAULT_SEED_OPTIONS[key]})`)
  .join('\n')}
  --help                  this text`;

export class SeedOptionsError extends Error {}

/** Parses the command line; `undefined` means help was asked for. Throws SeedOptionsError with one line. */
export function parseSeedOptions(args: string[]): SeedOptions | undefined {
  const options = Object.fromEntries(
    Object.values(FLAGS).map(([flag]) => [flag, { type: 'string' as const }]),
  ) as Record<string, { type: 'string' }>;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args, options: { ...options, help: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    throw new SeedOptionsError(`seed: ${(error as Error).message.split('\n')[0]} (see seed --help)`);
  }
  if (values.help) return undefined;

  const parsed = { ...DEFAULT_SEED_OPTIONS };
  for (const key of Object.keys(FLAGS) as (keyof SeedOptions)[]) {
    const raw = values[FLAGS[key][0]];
    if (raw === undefined) continue;
    const max = key === 'seed' ? 0xffffffff : MAX_ROWS;
    const value = /^\d+$/.test(String(raw)) ? Number(raw) : NaN;
    if (!(value <= max)) {
      throw new SeedOptionsError(
        `seed: --${FLAGS[key][0]} must be an integer from 0 to ${max} (got ${JSON.stringify(raw)})`,
      );
    }
    parsed[key] = value;
  }
  checkConsistency(parsed);
  return parsed;
}

function checkConsistency(o: SeedOptions): void {
  if (o.products > 0 && o.categories === 0)
    throw new SeedOptionsError('seed: --categories must be at least 1 when products are generated');
  if (o.orders > 0 && (o.users === 0 || o.products === 0)) {
    throw new SeedOptionsError('seed: --orders needs at least one seeded user and one seeded product');
  }
  const posts = o.users * o.postsPerUser;
  const comments = posts * o.commentsPerPost;
  const likes = comments * Math.min(o.likesPerComment, o.users);
  for (const [name, rows] of [
    ['posts', posts],
    ['comments', comments],
    ['likes', likes],
  ] as const) {
    if (rows > MAX_ROWS)
      throw new SeedOptionsError(`seed: that makes ${rows} ${name}; at most ${MAX_ROWS} rows per table`);
  }
}
