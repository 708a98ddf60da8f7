import { hashPassword } from '../core/access/passwords.ts';
import type { Db } from '../core/db/database.ts';

/** Password of the demo accounts (alice@, bob@, carol@example.com); documented in the README. */
export const DEMO_PASSWORD = 'demo-password';

/** The demo accounts that exist in `db` (the start-up line names them when demo data was loaded). */
export async function demoAccountsIn(db: Db): Promise<string[]> {
  const emails = PEOPLE.map((person) => person.email);
  const rows = await db.selectFrom('users').select('email').where('email', 'in', emails).execute();
  const present = new Set(rows.map((row) => row.email));
  return emails.filter((email) => present.has(email));
}

const PEOPLE = [
  { name: 'Alice Martin', email: 'alice@example.com', age: 34 },
  { name: 'Bob Chen', email: 'bob@example.com', age: 27 },
  { name: 'Carol Diaz', email: 'carol@example.com', age: null },
];

/** The demo accounts' e-mails (their password is DEMO_PASSWORD); GraphiQL signs in as the first in development. */
export const DEMO_EMAILS: readonly string[] = PEOPLE.map((person) => person.email);

const PRODUCTS: [name: string, category: string, priceCents: number, stock: number][] = [
  ['Mechanical Keyboard', 'electronics', 8999, 25],
  ['Wireless Mouse', 'electronics', 2499, 60],
  ['USB-C Hub', 'electronics', 3999, 0],
  ['Noise-Cancelling Headphones', 'electronics', 19900, 12],
  ['The Pragmatic Programmer', 'books', 4250, 40],
  ['Designing Data-Intensive Applications', 'books', 4899, 18],
  ['Refactoring', 'books', 4499, 0],
  ['Chef Knife', 'kitchen', 7900, 15],
  ['Cast Iron Skillet', 'kitchen', 3450, 30],
  ['Pour-Over Coffee Set', 'kitchen', 2999, 22],
  ['Garden Hose 20m', 'garden', 2799, 9],
  ['Pruning Shears', 'garden', 1599, 48],
  ['Yoga Mat', 'sports', 2200, 35],
  ['Running Shoes', 'sports', 11999, 14],
  ['Desk Lamp', 'home', 3999, 27],
  ['Wool Blanket', 'home', 6500, 0],
];

/** A small, readable data set for a brand-new database: people, content, a catalogue and orders. */
export async function insertDemoData(db: Db): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db.transaction().execute(async (trx) => {
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const users = await trx
      .insertInto('users')
      .values(
        PEOPLE.map((person, i) => ({
          ...person,
          role: 'user' as const,
          status: 'active' as const,
          email_verified: i < 2,
          password_hash: passwordHash,
          created_at: at(5000 - i),
          updated_at: at(5000 - i),
        })),
      )
      .returning('id')
      .execute();
    const [alice, bob, carol] = users.map((u) => u.id) as [number, number, number];

    const posts = await trx
      .insertInto('posts')
      .values([
        {
          author_id: alice,
          title: 'Hello, world',
          content: 'First post on the new content service.',
          created_at: at(4000),
          updated_at: at(4000),
        },
        {
          author_id: alice,
          title: 'Cursor pagination',
          content: 'Why ids beat offsets for feeds.',
          created_at: at(3000),
          updated_at: at(3000),
        },
        {
          author_id: bob,
          title: 'GraphQL and REST, one store',
          content: 'Both interfaces read the same tables.',
          created_at: at(2000),
          updated_at: at(2000),
        },
        {
          author_id: carol,
          title: 'Notes on caching',
          content: 'ETags make conditional requests cheap.',
          created_at: at(1000),
          updated_at: at(1000),
        },
      ])
      .returning('id')
      .execute();
    const [p1, p2, p3] = posts.map((p) => p.id) as [number, number, number];

    const comments = await trx
      .insertInto('comments')
      .values([
        { post_id: p1, author_id: bob, text: 'Welcome!', created_at: at(3900) },
        { post_id: p1, author_id: carol, text: 'Great to see this live.', created_at: at(3800) },
        { post_id: p2, author_id: bob, text: 'Offsets drift when rows are inserted, yes.', created_at: at(2900) },
        { post_id: p3, author_id: alice, text: 'Same rules below both, nice.', created_at: at(1900) },
      ])
      .returning('id')
      .execute();
    await trx
      .insertInto('comment_likes')
      .values([
        { comment_id: comments[0]!.id, user_id: alice, created_at: at(3700) },
        { comment_id: comments[0]!.id, user_id: carol, created_at: at(3600) },
        { comment_id: comments[2]!.id, user_id: alice, created_at: at(2800) },
      ])
      .execute();

    const products = await trx
      .insertInto('products')
      .values(
        PRODUCTS.map(([name, category, price_cents, stock], i) => ({
          name,
          category,
          price_cents,
          stock,
          image: `https://images.example.com/products/${i + 1}.jpg`,
          description: null,
          created_at: at(6000 - i * 10),
          updated_at: at(6000 - i * 10),
        })),
      )
      .returning(['id', 'name', 'price_cents'])
      .execute();

    const order = async (
      customer: number,
      status: 'pending' | 'paid' | 'cancelled',
      lines: [number, number][],
      minutesAgo: number,
    ) => {
      const items = lines.map(([index, quantity]) => ({ product: products[index]!, quantity }));
      const amount = items.reduce((sum, { product, quantity }) => sum + product.price_cents * quantity, 0);
      const created = await trx
        .insertInto('orders')
        .values({
          customer_id: customer,
          status,
          amount_cents: amount,
          currency: 'USD',
          created_at: at(minutesAgo),
          updated_at: at(status === 'pending' ? minutesAgo : minutesAgo - 5),
          paid_at: status === 'paid' ? at(minutesAgo - 5) : null,
          cancelled_at: status === 'cancelled' ? at(minutesAgo - 5) : null,
          refunded_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('order_items')
        .values(
          items.map(({ product, quantity }) => ({
            order_id: created.id,
            product_id: product.id,
            name: product.name,
            quantity,
            unit_price_cents: product.price_cents,
          })),
        )
        .execute();
      // A placed order took its stock (a cancelled one gave it back), so a later refund or the order-hold
      // sweep returns exactly what was taken.
      if (status === 'cancelled') return;
      for (const { product, quantity } of items) {
        await trx
          .updateTable('products')
          .set((eb) => ({ stock: eb('stock', '-', quantity) }))
          .where('id', '=', product.id)
          .execute();
      }
    };
    await order(
      alice,
      'paid',
      [
        [0, 1],
        [4, 2],
      ],
      900,
    );
    // Placed moments ago: it holds its stock for ORDER_HOLD_MINUTES, then the sweep cancels it.
    await order(alice, 'pending', [[8, 1]], 2);
    await order(bob, 'cancelled', [[13, 1]], 200);
  });
}
