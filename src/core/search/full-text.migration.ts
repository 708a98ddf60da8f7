import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../db/database.ts';
import type { SchemaMigration } from '../db/migrate.ts';
import type { OnlineBackfill } from '../db/online-backfills.ts';
import { TEXT_SEARCH_CONFIG, type SearchSource } from './search-source.ts';
import { isPlainIdentifier } from '../db/identifiers.ts';

/**
 * The migration of a module's full-text search (DECISIONS §14), from its `SearchSource`: all names are
 * the module's code, checked as plain identifiers.
 *
 * PostgreSQL: each row's weighted `tsvector` (`setweight` per field) in a side table of its own, 1:1
 * with the table (`id` its key and a foreign key deleting with the row), not a column of the table:
 * the table's reads (`select *`, `returning *`) and writes never carry the vector, and adding the
 * search never rewrites the table. Triggers keep it in step in the writing statement's transaction:
 * once per inserting statement, and per row when a searched column is written with a new value (a
 * write of the stock or the price leaves it alone). Its GIN index is built online after the
 * migrations (`create index concurrently`, online-indexes.ts), after the rows there before are filled
 * a range of ids per statement (online-backfills.ts): the migration's transaction holds the table's
 * writers only while it creates the triggers. The vocabulary for suggestions is a table
 * of the words indexed (the `simple` configuration: real words, not stems), filled by a trigger; a
 * word whose last row is gone stays (a suggestion of it then finds nothing, as a word with no match
 * would).
 *
 * SQLite: an FTS5 external-content table over the fields (porter stemming, diacritics removed), and a
 * contentless FTS5 table without stemming whose `fts5vocab` is the vocabulary; triggers keep both in
 * step with the table's rows in the writing statement's own transaction. Both are backfilled.
 */

function checked(source: SearchSource): SearchSource {
  const names = [
    source.table,
    source.documentTable,
    source.ftsTable,
    source.wordsTable.postgres,
    source.wordsTable.sqlite,
    ...Object.values(source.fields).map((field) => field.column),
  ];
  const bad = names.find((name) => !isPlainIdentifier(name));
  if (bad !== undefined) throw new Error(`full-text search of ${source.table}: ${bad} is not a plain identifier`);
  return source;
}

const run = (db: Kysely<unknown>, text: string) => sql.raw(text).execute(db);

/**
 * A per-row trigger after an update that gives a searched column a new value (PostgreSQL allows no
 * transition table with a column list): a stock or price write runs no text search work.
 */
const onSearchedChange = (name: string, table: string, columns: readonly string[], call: string) =>
  `create trigger ${name} after update of ${columns.join(', ')} on ${table}
   for each row when (${columns.map((column) => `old.${column} is distinct from new.${column}`).join(' or ')})
   execute function ${call}`;

/** PostgreSQL: the weighted vector of the row `row` names, each field with its weight. */
const vectorOf = (source: SearchSource, row: string) =>
  Object.values(source.fields)
    .map(
      ({ column, weight }) =>
        `setweight(to_tsvector('${TEXT_SEARCH_CONFIG}'::regconfig, coalesce(${row}.${column}, '')), '${weight}')`,
    )
    .join(' || ');

/** PostgreSQL: the words (`simple`: real words, not stems) of the rows `from` names, `alias` the name its rows go by. */
function wordsOf(source: SearchSource, from: string, alias = from): string {
  const text = Object.values(source.fields)
    .map(({ column }) => `coalesce(${alias}.${column}, '')`)
    .join(` || ' ' || `);
  return `select distinct u.lexeme from ${from}, unnest(to_tsvector('simple'::regconfig, ${text})) as u
     where length(u.lexeme) <= 40 and u.lexeme !~ '[^[:alpha:]]'`;
}

/**
 * PostgreSQL: the side table of the rows' vectors and its triggers; the rows there before are filled
 * online (`backfillsOf`). The update trigger upserts: a row a range has not reached yet gets its
 * document at once, and a range filled from an older snapshot does not overwrite it.
 */
async function createDocuments(db: Kysely<unknown>, source: SearchSource): Promise<void> {
  const { table, documentTable: documents } = source;
  const columns = Object.values(source.fields).map(({ column }) => column);
  await run(
    db,
    `create table ${documents} (
       id integer primary key references ${table} (id) on delete cascade,
       document tsvector not null
     )`,
  );
  await run(
    db,
    `create function ${documents}_insert() returns trigger language plpgsql as $$
     begin
       insert into ${documents} (id, document) select changed.id, ${vectorOf(source, 'changed')} from changed;
       return null;
     end $$`,
  );
  await run(
    db,
    `create trigger ${documents}_insert after insert on ${table} referencing new table as changed
     for each statement execute function ${documents}_insert()`,
  );
  // Per row: PostgreSQL gives a trigger with a column list no transition table.
  await run(
    db,
    `create function ${documents}_update() returns trigger language plpgsql as $$
     begin
       insert into ${documents} (id, document) values (new.id, ${vectorOf(source, 'new')})
       on conflict (id) do update set document = excluded.document;
       return null;
     end $$`,
  );
  await run(db, onSearchedChange(`${documents}_update`, table, columns, `${documents}_update()`));
}

/**
 * A bulk writer that adds the words of its rows itself, set-based (the seed: its generator's
 * vocabulary), says so for its transaction (`set_config(SEED_FILLS_WORDS, 'on', true)`); the insert
 * trigger then skips tokenising the rows a second time. Every other writer leaves it unset.
 */
export const SEED_FILLS_WORDS = 'content_service.seed_fills_words';

/** The insert trigger's function of the words table, `guarded`: skipped while SEED_FILLS_WORDS is on. */
function wordsAddFunction(source: SearchSource, words: string, guarded: boolean, ordered = false): string {
  const guard = guarded ? `if current_setting('${SEED_FILLS_WORDS}', true) = 'on' then return null; end if;` : '';
  return `create or replace function ${words}_add() returns trigger language plpgsql as $$
     begin
       ${guard}
       insert into ${words} (word)
       ${wordsOf(source, 'changed')} and not exists (select 1 from ${words} where word = u.lexeme) ${ordered ? 'order by 1' : ''}
       on conflict do nothing;
       return null;
     end $$`;
}

/** The migration that lets a bulk writer fill the words itself (SEED_FILLS_WORDS); PostgreSQL only. */
export function wordsFilledByWriterMigration(declared: SearchSource): SchemaMigration {
  const source = checked(declared);
  const words = source.wordsTable.postgres;
  return {
    async up(db) {
      if (dialectOf(db) === 'postgres') await run(db, wordsAddFunction(source, words, true));
    },
    async down(db) {
      if (dialectOf(db) === 'postgres') await run(db, wordsAddFunction(source, words, false));
    },
  };
}

/**
 * The words' insert trigger (not guarded: wordsFilledByWriterMigration) writing new words in key order, so
 * two transactions adding the same new words (an import's lanes) queue in one order, not deadlock (PostgreSQL).
 */
export function wordsInKeyOrderMigration(declared: SearchSource): SchemaMigration {
  const source = checked(declared);
  const words = source.wordsTable.postgres;
  return {
    async up(db) {
      if (dialectOf(db) === 'postgres') await run(db, wordsAddFunction(source, words, false, true));
    },
    async down(db) {
      if (dialectOf(db) === 'postgres') await run(db, wordsAddFunction(source, words, false));
    },
  };
}

/** PostgreSQL: the table of the words indexed and its triggers; the rows there before are read online (`backfillsOf`). */
async function createWords(db: Kysely<unknown>, source: SearchSource, words: string): Promise<void> {
  const { table } = source;
  const columns = Object.values(source.fields).map(({ column }) => column);
  await run(db, `create table ${words} (word text primary key)`);
  // Once per statement over its rows (a transition table), not per row: a bulk insert of thousands of
  // rows looks its words up once. Only words not there yet are written, so writers sharing a common
  // word do not queue on its key.
  await run(db, wordsAddFunction(source, words, false));
  await run(
    db,
    `create trigger ${words}_insert after insert on ${table} referencing new table as changed
     for each statement execute function ${words}_add()`,
  );
  // An update adds words only when a searched column gets a new value: per row, as the document's
  // trigger (a column list allows no transition table), so an order's stock decrement or a price change
  // does not re-tokenise the row's text.
  await run(
    db,
    `create function ${words}_add_row() returns trigger language plpgsql as $$
     begin
       insert into ${words} (word)
       ${wordsOf(source, '(select new.*) as changed', 'changed')}
       and not exists (select 1 from ${words} where word = u.lexeme)
       on conflict do nothing;
       return null;
     end $$`,
  );
  await run(db, onSearchedChange(`${words}_update`, table, columns, `${words}_add_row()`));
}

async function upSqlite(db: Kysely<unknown>, source: SearchSource, words: string): Promise<void> {
  const { table, ftsTable } = source;
  const columns = Object.values(source.fields).map(({ column }) => column);
  const list = columns.join(', ');
  const values = (row: string) => columns.map((column) => `${row}.${column}`).join(', ');
  const add = (fts: string) => `insert into ${fts} (rowid, ${list}) values (new.id, ${values('new')});`;
  const remove = (fts: string) =>
    `insert into ${fts} (${fts}, rowid, ${list}) values ('delete', old.id, ${values('old')});`;
  await run(
    db,
    `create virtual table ${ftsTable} using fts5(${list}, content='${table}', content_rowid='id',
     tokenize='porter unicode61 remove_diacritics 2')`,
  );
  await run(
    db,
    `create virtual table ${words} using fts5(${list}, content='', detail=none,
     tokenize='unicode61 remove_diacritics 2')`,
  );
  await run(db, `create virtual table ${source.wordsTable.sqlite} using fts5vocab(${words}, row)`);
  await run(db, `create trigger ${ftsTable}_insert after insert on ${table} begin ${add(ftsTable)} ${add(words)} end`);
  await run(
    db,
    `create trigger ${ftsTable}_delete after delete on ${table} begin ${remove(ftsTable)} ${remove(words)} end`,
  );
  await run(
    db,
    `create trigger ${ftsTable}_update after update of ${list} on ${table} begin
     ${remove(ftsTable)} ${remove(words)} ${add(ftsTable)} ${add(words)} end`,
  );
  await run(db, `insert into ${ftsTable} (${ftsTable}) values ('rebuild')`);
  await run(db, `insert into ${words} (rowid, ${list}) select id, ${list} from ${table}`);
}

/** PostgreSQL: the documents and the words of the rows there before the migration, a range of ids at a time. */
function backfillsOf(source: SearchSource, words: string): OnlineBackfill[] {
  const { table, documentTable: documents } = source;
  const inRange = (after: number, upTo: number) =>
    sql`${sql.raw(`${table}.id`)} > ${after} and ${sql.raw(`${table}.id`)} <= ${upTo}`;
  return [
    {
      name: documents,
      table,
      async fill(db, after, upTo) {
        await sql`${sql.raw(`insert into ${documents} (id, document) select ${table}.id, ${vectorOf(source, table)} from ${table} where`)} ${inRange(after, upTo)} on conflict (id) do nothing`.execute(
          db,
        );
      },
    },
    {
      name: words,
      table,
      async fill(db, after, upTo) {
        await sql`${sql.raw(`insert into ${words} (word) ${wordsOf(source, table)} and`)} ${inRange(after, upTo)} on conflict do nothing`.execute(
          db,
        );
      },
    },
  ];
}

/** The migration: `up`, `down`, and on PostgreSQL the backfills and the GIN index run online. */
export function fullTextMigration(declared: SearchSource): SchemaMigration {
  const source = checked(declared);
  const pgWords = source.wordsTable.postgres;
  // SQLite: the contentless table the vocabulary reads, named after the vocabulary.
  const sqliteWords = `${source.ftsTable}_words`;
  return {
    async up(db) {
      if (dialectOf(db) === 'postgres') {
        await createDocuments(db, source);
        await createWords(db, source, pgWords);
      } else await upSqlite(db, source, sqliteWords);
    },
    async down(db) {
      if (dialectOf(db) === 'postgres') {
        for (const event of ['insert', 'update']) {
          await run(db, `drop trigger if exists ${pgWords}_${event} on ${source.table}`);
        }
        await run(db, `drop function if exists ${pgWords}_add()`);
        await run(db, `drop function if exists ${pgWords}_add_row()`);
        await run(db, `drop table if exists ${pgWords}`);
        for (const event of ['insert', 'update']) {
          await run(db, `drop trigger if exists ${source.documentTable}_${event} on ${source.table}`);
          await run(db, `drop function if exists ${source.documentTable}_${event}()`);
        }
        await run(db, `drop table if exists ${source.documentTable}`);
        return;
      }
      for (const suffix of ['insert', 'delete', 'update'])
        await run(db, `drop trigger if exists ${source.ftsTable}_${suffix}`);
      for (const name of [source.wordsTable.sqlite, sqliteWords, source.ftsTable])
        await run(db, `drop table if exists ${name}`);
    },
    onlineBackfills: backfillsOf(source, pgWords),
    onlineIndexes: [
      {
        name: `${source.documentTable}_document_idx`,
        table: source.documentTable,
        definition: 'using gin (document)',
        postgresOnly: true,
      },
    ],
  };
}
