import {
  AliasNode,
  IdentifierNode,
  InsertQueryNode,
  OnConflictNode,
  PrimitiveValueListNode,
  SelectionNode,
  SelectQueryNode,
  TableNode,
  ValueNode,
  ValuesNode,
  type Compilable,
  type ValuesItemNode,
  type KyselyPlugin,
  type OperationNode,
  type QueryCreator,
  type RootOperationNode,
} from 'kysely';
import type { Tables } from '../../core/db/tables.ts';
import { WRITER_KEY_STEP } from './feed-horizon.ts';

/**
 * A module's insert of one new row of its own table, typed against it, as its repository builds it:
 * `qc.insertInto('posts').values(row).returningAll()`. `qc` is the database, a transaction, or on
 * PostgreSQL the outbox's steps that come before the row in one statement (the writer key, the event:
 * `events.statements.ts`). The outbox runs it with the row's `*.created` event without knowing the table.
 */
export type RowInsert<Row, New = NewRowOf<Row>> = (qc: QueryCreator<Tables>, row: New) => RowInsertQuery<Row>;

/** A new row as the outbox hands it to the module's insert: every column, the id when reserved ahead. */
export type NewRowOf<Row> = Omit<Row, 'id'> & { id?: number };

/** What the outbox needs of the module's insert builder (Kysely's `InsertQueryBuilder` is one). */
export interface RowInsertQuery<Row> extends Compilable<Row> {
  withPlugin(plugin: KyselyPlugin): RowInsertQuery<Row>;
  toOperationNode(): OperationNode;
  executeTakeFirstOrThrow(): Promise<Row>;
}

/** The one row of an `insert ... values (...)`, or a refusal naming what the outbox cannot wrap. */
export function insertOfOneRow(node: OperationNode): InsertQueryNode & { values: ValuesNode } {
  if (!InsertQueryNode.is(node) || !node.values || !ValuesNode.is(node.values) || node.values.values.length !== 1)
    throw new Error("a created row's insert must be `insert into <table> (...) values (<one row>)`");
  return node as InsertQueryNode & { values: ValuesNode };
}

/**
 * PostgreSQL, in the one statement of a row and its event: turns the module's `values (...)` into
 * `select ... from "writer_key"`, so the row is written only once the writer key is held (a step
 * nothing selects from is never run, and the statement's main insert runs before its other steps:
 * feed-horizon.ts). The values stay as they were bound, each named after its column.
 */
export const SELECTED_FROM_WRITER_KEY: KyselyPlugin = {
  transformQuery({ node }): RootOperationNode {
    const insert = insertOfOneRow(node);
    const [row] = insert.values.values;
    const values = PrimitiveValueListNode.is(row!) ? row.values.map((value) => ValueNode.create(value)) : row!.values;
    const columns = insert.columns ?? [];
    if (columns.length !== values.length) throw new Error("a created row's insert names a column per value");
    const selections = values.map((value, i) =>
      SelectionNode.create(AliasNode.create(value, IdentifierNode.create(columns[i]!.column.name))),
    );
    const select = SelectQueryNode.cloneWithSelections(
      SelectQueryNode.createFrom([TableNode.create(WRITER_KEY_STEP)]),
      selections,
    );
    return InsertQueryNode.cloneWith(insert, { values: select });
  },
  transformResult: ({ result }) => Promise.resolve(result),
};

const tables = new WeakMap<object, string>();

/**
 * The table a module's insert writes to (read once from the statement it builds): the sequence its new
 * ids are reserved from on PostgreSQL (row-ids.ts).
 */
export function tableOf<Row, New>(qc: QueryCreator<Tables>, insert: RowInsert<Row, New>, row: New): string {
  let table = tables.get(insert);
  if (table === undefined) {
    const node = insertOfOneRow(insert(qc, row).toOperationNode());
    table = node.into!.table.identifier.name;
    tables.set(insert, table);
  }
  return table;
}

/**
 * Many new rows in one statement, by a module's insert of one row (`RowInsert`, its repository's own): the
 * `values` of each row's insert joined into one list (every row names the same columns). With `skipTaken`,
 * `on conflict do nothing`: a row a unique key refuses is neither written nor returned, the others are.
 */
export function manyRowsInsert<Row, New>(
  qc: QueryCreator<Tables>,
  insert: RowInsert<Row, New>,
  rows: readonly New[],
  skipTaken: boolean,
): Compilable<Row> {
  const first = insertOfOneRow(insert(qc, rows[0]!).toOperationNode());
  const columns = (first.columns ?? []).map((column) => column.column.name).join();
  const lists: ValuesItemNode[] = rows.map((row) => {
    const node = insertOfOneRow(insert(qc, row).toOperationNode());
    if ((node.columns ?? []).map((column) => column.column.name).join() !== columns)
      throw new Error('rows written in one statement must name the same columns');
    return node.values.values[0]!;
  });
  const joined: KyselyPlugin = {
    transformQuery: ({ node }) =>
      InsertQueryNode.cloneWith(insertOfOneRow(node), {
        values: ValuesNode.create(lists),
        ...(skipTaken ? { onConflict: OnConflictNode.cloneWith(OnConflictNode.create(), { doNothing: true }) } : {}),
      }),
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return insert(qc, rows[0]!).withPlugin(joined);
}
