import { directionSql, type SortDirection } from './sort-direction.ts';
import { anyTable, canonicalColumns, type TableName } from './by-id-statements.ts';
import { dialectOf, type Db } from './database.ts';
import { readRows } from './fast-read.ts';
import { columnInParam, idListParam, type IdListParam } from './id-list.ts';
import { shapedStatement, type BoundParams } from './statement-cache.ts';

export interface PagePerParent<Row> {
  /** The children's table, named by its module. */
  table: TableName;
  /** The column naming the parent (`author_id`, `post_id`), indexed with `id` as `(parent, id)`. */
  parent: keyof Row & string;
  direction: SortDirection;
  parentIds: readonly number[];
  window: { limit: number; offset: number };
  columns: readonly (keyof Row & string)[];
}

/**
 * The same page of children for every parent in one statement (the GraphQL list loaders): a window
 * numbers each parent's rows by id and the page is cut per parent, ordered by parent then id.
 * PostgreSQL stops each window early (a run condition) and reads only `columns`; SQLite numbers whole
 * rows slowly, so there the window runs over the `(parent, id)` index alone and only the page's rows
 * are read by primary key. On PostgreSQL that second form picks a hash join over the whole table
 * instead, several times slower, hence one form per database.
 */
export function selectPagePerParent<Row>(db: Db, spec: PagePerParent<Row>): Promise<Row[]> {
  if (spec.parentIds.length === 0) return Promise.resolve([]);
  const parent: string = spec.parent;
  // The id and the parent are always read: the page is ordered and grouped by them.
  const rest = canonicalColumns<string>(spec.columns).filter((column) => column !== 'id' && column !== parent);
  const shape: PageShape = { table: spec.table, parent, direction: spec.direction, columns: ['id', parent, ...rest] };
  const first = spec.window.offset;
  const last = spec.window.offset + spec.window.limit;
  return readRows(db, pageStatement(db, shape, { parentIds: idListParam(db, spec.parentIds), first, last })) as Promise<
    Row[]
  >;
}

type PageShape = {
  table: TableName;
  parent: string;
  direction: SortDirection;
  /** `id`, the parent, then the other columns once each, sorted: one shape per set of columns. */
  columns: readonly string[];
};

interface PageParams extends Record<string, unknown> {
  parentIds: IdListParam;
  /** The page is the rows numbered first + 1 to last in each parent's window. */
  first: number;
  last: number;
}

/** The SQL of each shape is built once (`shapedStatement`); on SQLite once per number of parent ids too. */
const pageStatement = shapedStatement({
  build: (db, shape: PageShape, params: BoundParams<PageParams>) => {
    const any = anyTable(db);
    const { table, parent, direction, columns } = shape;
    const numbered = any
      .selectFrom(table)
      .select((eb) =>
        eb.fn
          .agg<number>('row_number')
          .over((over) => over.partitionBy(parent).orderBy('id', directionSql(direction)))
          .as('rn'),
      )
      .where(columnInParam(db, parent, params.parentIds));
    return dialectOf(db) === 'postgres'
      ? any
          .selectFrom(numbered.select(columns).as('ranked'))
          .select(columns)
          .where('rn', '>', params.first)
          .where('rn', '<=', params.last)
          .orderBy(parent)
          .orderBy('id', directionSql(direction))
      : any
          .selectFrom(table)
          .select(columns)
          .where(
            'id',
            'in',
            any
              .selectFrom(numbered.select('id').as('ranked'))
              .select('id')
              .where('rn', '>', params.first)
              .where('rn', '<=', params.last),
          )
          .orderBy(parent)
          .orderBy('id', directionSql(direction));
  },
});
