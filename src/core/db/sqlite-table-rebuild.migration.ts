import { sql, type Kysely } from 'kysely';

/**
 * SQLite cannot drop or add a column constraint in place: the table is made again from its own
 * `create table` as `change` rewrites it, its rows copied, its autoincrement counter kept (ids are never
 * given twice) and its indexes made again from their own definitions, as SQLite's documentation describes
 * ("Making Other Kinds Of Table Schema Changes"). For a table no foreign key or trigger refers to; run
 * inside the migration's transaction, so a failure leaves the table as it was.
 */
export async function rebuildSqliteTable(
  db: Kysely<unknown>,
  table: string,
  change: (ddl: string) => string,
): Promise<void> {
  const schema = await sql<{ type: string; sql: string }>`
    select type, sql from sqlite_schema where tbl_name = ${table} and sql is not null`.execute(db);
  const ddl = schema.rows.find((row) => row.type === 'table')?.sql;
  if (!ddl) throw new Error(`${table}: no such table`);
  const changed = change(ddl);
  if (changed === ddl) throw new Error(`${table}: nothing to rebuild`);
  const copy = `${table}_rebuilt`;
  const head = new RegExp(`^create table "?${table}"?`, 'i');
  if (!head.test(changed)) throw new Error(`${table}: its create statement does not start as expected`);
  await sql.raw(changed.replace(head, `create table "${copy}"`)).execute(db);
  await sql`insert into ${sql.id(copy)} select * from ${sql.id(table)}`.execute(db);
  const given = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(db);
  await sql`drop table ${sql.id(table)}`.execute(db);
  await sql`alter table ${sql.id(copy)} rename to ${sql.id(table)}`.execute(db);
  if (given.rows[0]) {
    // The copy's own counter is the highest id copied: at most the one given before.
    await sql`delete from sqlite_sequence where name = ${table}`.execute(db);
    await sql`insert into sqlite_sequence (name, seq) values (${table}, ${given.rows[0].seq})`.execute(db);
  }
  for (const index of schema.rows.filter((row) => row.type === 'index')) await sql.raw(index.sql).execute(db);
}
