import { CompiledQuery, type Compilable } from 'kysely';
import { dialectOf, type Db } from './database.ts';

/**
 * Builds and compiles a query once per shape, then reuses its SQL with new parameter values.
 *
 * Kysely builds an operation tree and compiles it to SQL on every call: for the products list
 * (filters, sort, a total from counters) that cost more of a request's CPU than running the statement
 * on SQLite (bench/PRODUCTS.md). The SQL text depends only on the query's shape (which
 * filters are present, the sort, which parts the total has); the values only fill parameters.
 *
 * `build(db, shape, params)` must branch only on `shape` and on which params are `undefined` (both
 * are part of the cache key), never on a defined param's value, and must pass params into the query
 * only as values to bind (a param turned into SQL text or computed on throws at build). The first
 * call per key builds it with every defined param replaced by a unique marker, finds the markers
 * among the compiled parameters, and remembers their positions. A parameter that is not a marker is
 * a constant of the shape (a literal `true`, say) and kept as is. `keyOf(shape)` must tell apart
 * every shape a build can take apart.
 * A param whose value is an array (an id list for SQLite's `in (?, ?, …)`) stands for one parameter
 * per element: the build sees an array of as many markers, to bind each (`sql.join`), and its length
 * is part of the key, so each length is a shape of its own.
 * At most `maxShapes` shapes per dialect are kept; others are built on each call as before.
 * The compiled statement is run with `readRows` (fast-read.ts).
 */
export function statementCache<Shape, Params extends Record<string, unknown>, Row>(options: {
  build: (db: Db, shape: Shape, params: Params) => Compilable<Row>;
  keyOf: (shape: Shape) => string;
  maxShapes?: number;
}): (db: Db, shape: Shape, params: Params) => CompiledQuery<Row> {
  const { build, keyOf, maxShapes = 256 } = options;
  const statements = new Map<string, Statement>();

  return (db, shape, params) => {
    let key = `${dialectOf(db)} ${keyOf(shape)} |`;
    for (const name in params) {
      const value = params[name];
      if (value === undefined) continue;
      key += Array.isArray(value) ? ` ${name}[${value.length}]` : ` ${name}`;
    }
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = compileWithMarkers(db, shape, params, build);
      if (statements.size < maxShapes) statements.set(key, statement);
    }
    const values = statement.slots.map((slot) => {
      if (slot.param === undefined) return slot.constant;
      const value = params[slot.param];
      return slot.index === undefined ? value : (value as readonly unknown[])[slot.index];
    });
    return CompiledQuery.raw(statement.sql, values) as CompiledQuery<Row>;
  };
}

interface Slot {
  /** The name of the param this parameter takes its value from; undefined for a constant. */
  param?: string;
  /** For an array param: which of its elements. */
  index?: number;
  constant?: unknown;
}

interface Statement {
  sql: string;
  slots: Slot[];
}

/**
 * Stands for a param while a shape is built. Turned into text or a number (spliced into SQL, or used
 * in arithmetic) it throws: a param may only ever be bound, so user text never becomes SQL.
 */
class Marker {
  readonly param: string;
  readonly index: number | undefined;
  constructor(param: string, index?: number) {
    this.param = param;
    this.index = index;
  }
  toString(): never {
    throw new Error(
      `statementCache: param "${this.param}" must be bound as a value, not turned into SQL text or computed on`,
    );
  }
  valueOf(): never {
    return this.toString();
  }
}

function compileWithMarkers<Shape, Params extends Record<string, unknown>>(
  db: Db,
  shape: Shape,
  params: Params,
  build: (db: Db, shape: Shape, params: Params) => Compilable<unknown>,
): Statement {
  const marked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) marked[name] = undefined;
    else if (Array.isArray(value)) marked[name] = value.map((_, index) => new Marker(name, index));
    else marked[name] = new Marker(name);
  }
  const compiled = build(db, shape, marked as Params).compile();
  const slots = compiled.parameters.map((value): Slot => {
    if (Array.isArray(value) && value.some((element) => element instanceof Marker)) {
      throw new Error(
        'statementCache: an array param must be bound one element per parameter (sql.join), not as one value',
      );
    }
    if (!(value instanceof Marker)) return { constant: value };
    return value.index === undefined ? { param: value.param } : { param: value.param, index: value.index };
  });
  return { sql: compiled.sql, slots };
}
