import type { Db } from '../../src/core/db/database.ts';

/** A product of a test catalogue: name, category, price in cents, stock. */
export type CatalogueEntry = [name: string, category: string, cents: number, stock: number];

export interface CatalogueRow {
  id: number;
  name: string;
  category: string;
  cents: number;
  stock: number;
  createdAt: string;
}

/**
 * Inserts a catalogue in one statement, each product created a minute apart in an order unlike the
 * ids' (the 8th is the oldest after the 1st, ...; from the 11th on, times repeat), and returns the rows
 * in the catalogue's order with their ids and creation times.
 */
export async function insertCatalogue(db: Db, catalogue: readonly CatalogueEntry[]): Promise<CatalogueRow[]> {
  const start = Date.UTC(2026, 0, 1);
  const inserted = await db
    .insertInto('products')
    .values(
      catalogue.map(([name, category, cents, stock], i) => {
        const at = new Date(start + ((i * 7) % 10) * 60_000).toISOString();
        return { name, category, price_cents: cents, stock, created_at: at, updated_at: at };
      }),
    )
    .returning(['id', 'created_at'])
    .execute();
  return catalogue.map(([name, category, cents, stock], i) => ({
    id: inserted[i]!.id,
    name,
    category,
    cents,
    stock,
    createdAt: inserted[i]!.created_at,
  }));
}
