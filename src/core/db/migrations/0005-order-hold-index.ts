import type { Kysely } from 'kysely';

/**
 * The order-hold sweep (DECISIONS §3) asks for pending orders created before a cutoff, oldest first,
 * every ORDER_SWEEP_INTERVAL_MS on every instance. `orders_status_idx` (status, id) would make it read
 * every pending order; this index reads only the overdue ones, in the order the sweep takes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('orders_status_created_at_idx')
    .on('orders')
    .columns(['status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_status_created_at_idx').execute();
}
