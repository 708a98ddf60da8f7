import { CompiledQuery, ValueNode, type Compilable, type Expression, type OperationNode } from 'kysely';
import { dialectOf, type Db } from './database.ts';

/**
 * Builds and compiles a query once per shape, then reuses its SQL with new parameter values.
 *
 * Kysely builds an operation tree and compiles it to SQL on every call: for the products list
 * (filters, sort, a total from counters) that cost more of a request's CPU than running the statement
 * on SQLite (bench/PRODUCTS.md). The SQL text depends only on the query's shape (which
 * filters are present, the sort, which parts the total has); the values only fill parameters.
 *
 * The rule "build branches only on shape" is held by the types where it can be:
 * - the build never sees a param's value: each defined param reaches it as a `Bound` (an expression
 *   that binds the value as a parameter), each element of an array param as one, so a value cannot be
 *   compared, computed on or spliced into the text without a type error;
 * - the shape is made of plain data only (`ShapeValue`: names, flags, lengths, nested lists and
 *   records of them, never a function or an unknown value), and the cache key is the whole shape with
 *   which params are undefined and each array param's length: a key always tells apart every shape a
 *   build can take apart.
 * What the types cannot see is checked when a shape is built: a bound param turned into text or a
 * number throws; an array param bound as one value throws; a key's statement is built a second time on
 * its second use and must come out the same (a build that reads anything beside its shape and params
 * is an error, not a wrong statement); on PostgreSQL each text must use exactly its parameters. A shape
 * must still carry no user value (it would only cost a statement per value, never bind a wrong one).
 * A parameter that is not a bound param is a constant of the shape (a literal `true`, say) and kept.
 * At most `maxShapes` shapes per dialect are kept; others are built on each call as before.
 * The compiled statement is run with `readRows` (fast-read.ts). Only src/core and `*.statements.ts`
 * files may import this file or fast-read.ts (`.dependency-cruiser.cjs`, compiled-statements-confined).
 */
export function shapedStatement<Shape extends ShapeValue, Params extends Record<string, unknown>, Row>(options: {
  build: (db: Db, shape: Shape, params: BoundParams<Params>) => Compilable<Row>;
  maxShapes?: number;
}): (db: Db, shape: Shape, params: Params) => CompiledQuery<Row> {
  return cachedStatement(options.build as Build<Shape, Row>, options.maxShapes);
}

type Build<Shape, Row> = (db: Db, shape: Shape, params: never) => Compilable<Row>;

function cachedStatement<Shape, Params extends Record<string, unknown>, Row>(
  build: Build<Shape, Row>,
  maxShapes = 256,
): (db: Db, shape: Shape, params: Params) => CompiledQuery<Row> {
  const statements = new Map<string, Statement>();

  return (db, shape, params) => {
    let key = `${dialectOf(db)} ${shapeKey(shape)} |`;
    for (const name in params) {
      const value = params[name];
      if (value === undefined) continue;
      key += Array.isArray(value) ? ` ${name}[${value.length}]` : ` ${name}`;
    }
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = compileWithMarkers(db, shape, params, build);
      if (statements.size < maxShapes) statements.set(key, statement);
    } else if (!statement.confirmed) {
      // The second use of a key builds it once more and must give the same text: a build that read
      // anything but its shape and params would otherwise run one statement with another's values.
      confirmSameText(key, statement, compileWithMarkers(db, shape, params, build));
    }
    const values = statement.slots.map((slot) => {
      if (slot.param === undefined) return slot.constant;
      const value = params[slot.param];
      return slot.index === undefined ? value : (value as readonly unknown[])[slot.index];
    });
    return CompiledQuery.raw(statement.sql, values) as CompiledQuery<Row>;
  };
}

/** What a shape may be made of: data that names a statement's form, never a value to bind. */
export type ShapeValue =
  string | number | boolean | null | undefined | readonly ShapeValue[] | { readonly [key: string]: ShapeValue };

/** A param as a build sees it: an expression that binds the value, which the build can place but not read. */
export type Bound<T> = Expression<T>;

/** Each param bound: an array's elements one by one (its length is part of the shape), undefined kept. */
export type BoundParams<Params> = { readonly [Name in keyof Params]: BoundParam<Params[Name]> };

type BoundParam<Value> = Value extends undefined
  ? undefined
  : Value extends readonly (infer Element)[]
    ? readonly Bound<Element>[]
    : Bound<Value>;

/** The key of a shape: all of it (a scalar as itself, anything else as its JSON). */
function shapeKey(shape: unknown): string {
  return typeof shape === 'object' && shape !== null ? JSON.stringify(shape) : String(shape);
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
  /** Whether a second build under the same key gave the same text (`confirmSameText`). */
  confirmed?: boolean;
}

function confirmSameText(key: string, kept: Statement, again: Statement): void {
  const same =
    kept.sql === again.sql &&
    kept.slots.length === again.slots.length &&
    kept.slots.every((slot, i) => slot.param === again.slots[i]!.param && slot.index === again.slots[i]!.index);
  if (!same)
    throw new Error(
      `shapedStatement: two different statements under one key (${key}); the build must depend on its shape and params only`,
    );
  kept.confirmed = true;
}

/**
 * PostgreSQL's numbered parameters: the text must use each of `$1`..`$n` for n bound values, no more and
 * no fewer. A text that does not (a comment or a quote swallowing a parameter) is refused at build,
 * never sent with values that no longer fit it.
 */
function checkNumberedParameters(text: string, count: number): void {
  const used = new Set([...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
  const fits = used.size === count && [...used].every((n) => n >= 1 && n <= count);
  if (!fits) throw new Error(`shapedStatement: the statement's text uses ${used.size} parameters for ${count} values`);
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
      `shapedStatement: param "${this.param}" must be bound as a value, not turned into SQL text or computed on`,
    );
  }
  valueOf(): never {
    return this.toString();
  }
}

/**
 * A marker as a build receives it (`Bound`): an expression whose node is the marker's value, as a value
 * passed straight to Kysely would be (the same text), and which refuses text as the marker does.
 */
class BoundMarker<T> implements Expression<T> {
  readonly marker: Marker;
  constructor(marker: Marker) {
    this.marker = marker;
  }
  get expressionType(): T | undefined {
    return undefined;
  }
  toOperationNode(): OperationNode {
    return ValueNode.create(this.marker);
  }
  toString(): never {
    return this.marker.toString();
  }
  valueOf(): never {
    return this.marker.toString();
  }
}

/** Whether a compiled parameter holds markers (an array param bound as one value). */
const holdsMarkers = (value: unknown) =>
  Array.isArray(value) && value.some((element) => element instanceof Marker || element instanceof BoundMarker);

function compileWithMarkers<Shape, Params extends Record<string, unknown>>(
  db: Db,
  shape: Shape,
  params: Params,
  build: (db: Db, shape: Shape, params: never) => Compilable<unknown>,
): Statement {
  const marked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) marked[name] = undefined;
    else if (Array.isArray(value)) marked[name] = value.map((_, index) => new BoundMarker(new Marker(name, index)));
    else marked[name] = new BoundMarker(new Marker(name));
  }
  const compiled = build(db, shape, marked as never).compile();
  const slots = compiled.parameters.map((value): Slot => {
    if (holdsMarkers(value)) {
      throw new Error(
        'shapedStatement: an array param must be bound one element per parameter (sql.join), not as one value',
      );
    }
    if (!(value instanceof Marker)) return { constant: value };
    return value.index === undefined ? { param: value.param } : { param: value.param, index: value.index };
  });
  if (dialectOf(db) === 'postgres') checkNumberedParameters(compiled.sql, slots.length);
  return { sql: compiled.sql, slots };
}
