/**
 * The aggregates and facets of a resource (DECISIONS §14), declared once as data beside its list
 * grammar (list-grammar.ts): the numeric fields a measure may read, the fields a result may be grouped
 * by, the time fields that group by a UTC bucket, and the fields a list may count as facets. Every
 * column, function, bucket and direction of the SQL is looked up here by the client's text, never
 * copied from it (DECISIONS §13); aggregate-parse.ts reads a request against it, aggregate-sql.ts
 * builds the statement.
 */

export const MEASURE_FUNCTIONS = ['sum', 'avg', 'min', 'max'] as const;
export type MeasureFunction = (typeof MEASURE_FUNCTIONS)[number];

/** UTC buckets of a time field; `week` is the ISO week, starting on Monday. */
export const TIME_BUCKETS = ['day', 'week', 'month', 'year'] as const;
export type TimeBucket = (typeof TIME_BUCKETS)[number];

export interface MeasureField {
  /** The column it reads, as the module's table names it. */
  column: string;
  /**
   * Money stored in integer cents: sums and averages are computed from the cents and served through
   * this (the module's money helper, cents → currency units); averages round half-even to the cent.
   * Absent: a plain integer, whose average rounds half-even to two decimals.
   */
  fromCents?: (cents: number) => number;
}

export interface GroupField {
  column: string;
  /** How a key's value is served: an integer column's as a number, else as text. */
  type: 'integer' | 'text';
  /** Only administrators may group by it (403 for anyone else, as the list grammar's `adminOnly`). */
  adminOnly?: boolean;
}

export interface AggregateGrammar {
  /** The resource's name, for messages. */
  resource: string;
  /** `sum(f)`, `avg(f)`, `min(f)`, `max(f)` take these fields. */
  measures: Readonly<Record<string, MeasureField>>;
  /** `groupBy` takes these fields as they are. */
  groups: Readonly<Record<string, GroupField>>;
  /** `groupBy` takes these as `field:bucket` (`createdAt:month`). Timestamp columns. */
  timeFields: Readonly<Record<string, { column: string }>>;
  /**
   * `facets=` on the list takes these groups: each counts the list's matches per value with the list
   * filter's conditions on that same field (the list grammar's field of the same name) left out.
   */
  facets: readonly string[];
}

/** `limit` of an aggregate: its default and its cap on the groups one answer holds. */
export const AGGREGATE_LIMITS = { defaultLimit: 100, maxLimit: 1000 };

/** The most group keys and measures one request may name: each adds a column and a sort key to the statement. */
export const MAX_GROUP_KEYS = 4;
export const MAX_MEASURES = 12;

/** A facet holds at most this many values, most frequent first. */
export const MAX_FACET_VALUES = 50;

/**
 * What an aggregate or facet request is charged against the rate limit (core/hardening/rate-limit.ts),
 * in plain reads: an aggregate reads every matching row, as a list's exact count does, and groups them;
 * each facet is one more such statement beside the list's page.
 */
export const AGGREGATE_REQUEST_WEIGHT = 10;
export const FACET_WEIGHT = 5;

/** The weight of a list request whose `facets` parameter is `facets`: one read, plus each facet named. */
export function listWeightWithFacets(facets: unknown): number {
  const named = typeof facets === 'string' ? new Set(facets.split(',').filter((name) => name.trim() !== '')).size : 0;
  return 1 + FACET_WEIGHT * Math.min(named, 10);
}

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Defines a resource's aggregates (an identity that checks its shape once, at start). */
export function defineAggregateGrammar(grammar: AggregateGrammar): AggregateGrammar {
  const names = [...Object.keys(grammar.measures), ...Object.keys(grammar.groups), ...Object.keys(grammar.timeFields)];
  for (const name of names) {
    if (!NAME.test(name)) throw new Error(`aggregate grammar ${grammar.resource}: bad field ${name}`);
  }
  for (const facet of grammar.facets) {
    if (!Object.hasOwn(grammar.groups, facet)) {
      throw new Error(`aggregate grammar ${grammar.resource}: facet ${facet} is not a group field`);
    }
  }
  return grammar;
}

/** The columns an aggregate of `grammar` may name (checked before any SQL is built, as list-sql.ts does). */
export function aggregateColumnsOf(grammar: AggregateGrammar): string[] {
  return [
    ...Object.values(grammar.measures).map((field) => field.column),
    ...Object.values(grammar.groups).map((field) => field.column),
    ...Object.values(grammar.timeFields).map((field) => field.column),
  ];
}
