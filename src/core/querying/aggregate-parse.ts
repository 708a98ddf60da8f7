import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import { ASCENDING, DESCENDING, type SortDirection } from '../db/sort-direction.ts';
import {
  AGGREGATE_LIMITS,
  MAX_GROUP_KEYS,
  MAX_MEASURES,
  MEASURE_FUNCTIONS,
  TIME_BUCKETS,
  type AggregateGrammar,
  type GroupField,
  type MeasureFunction,
  type TimeBucket,
} from './aggregate-grammar.ts';

/** One measure of an aggregate: `count`, or a function of a declared numeric field. */
export type Measure =
  | { name: 'count'; fn: 'count' }
  | {
      name: string;
      fn: MeasureFunction;
      field: string;
      column: string;
      fromCents: ((cents: number) => number) | undefined;
    };

/** One group key: a declared field as it is, or a time field's UTC bucket (`createdAt:month`). */
export type GroupKey =
  | { name: string; column: string; type: GroupField['type'] }
  | { name: string; column: string; type: 'bucket'; bucket: TimeBucket };

export interface AggregateSortKey {
  /** What is ordered by: one of the request's group keys, or a measure (selected or not). */
  by: { group: GroupKey } | { measure: Measure };
  direction: SortDirection;
}

/** An aggregate request once read against its grammar: what the statement is built from. */
export interface AggregateQuery {
  measures: Measure[];
  groups: GroupKey[];
  /** The requested order; the group keys not in it follow, ascending (aggregate-sql.ts). */
  sort: AggregateSortKey[];
  limit: number;
}

/** The aggregate parameters as a transport hands them over: comma lists (REST) or lists (GraphQL). */
export interface AggregateRequest {
  measures?: string | readonly string[] | undefined;
  groupBy?: string | readonly string[] | undefined;
  sort?: string | readonly string[] | undefined;
  limit?: number | undefined;
}

const COUNT: Measure = { name: 'count', fn: 'count' };
const CALL = /^([a-z]+)\(([A-Za-z][A-Za-z0-9_]*)\)$/;
const BUCKETED = /^([A-Za-z][A-Za-z0-9_]*):([a-z]+)$/;

/**
 * A client's text as a message quotes it: only when it is shaped like what it should have been (a name,
 * a call, a bucket), so no answer echoes arbitrary text (SQL, markup, control characters) back.
 */
const quoted = (text: string) => (/^[-A-Za-z0-9_:()]{1,60}$/.test(text) ? JSON.stringify(text) : '(not a name)');

/** The items of a comma list (or a list), trimmed; empty items name nothing. */
const itemsOf = (value: string | readonly string[] | undefined): string[] =>
  value === undefined
    ? []
    : (typeof value === 'string' ? value.split(',') : [...value]).map((item) => item.trim()).filter(Boolean);

const isOneOf = <T extends string>(list: readonly T[], text: string): text is T =>
  (list as readonly string[]).includes(text);

function measureOf(grammar: AggregateGrammar, text: string): Measure | string {
  if (text === 'count') return COUNT;
  const call = CALL.exec(text);
  const fields = Object.keys(grammar.measures).join(', ');
  if (!call) return `unknown measure ${quoted(text)}; measures: count, sum(f), avg(f), min(f), max(f) of ${fields}`;
  const [, fn, field] = call as unknown as [string, string, string];
  if (!isOneOf(MEASURE_FUNCTIONS, fn))
    return `unknown function ${quoted(fn)}; functions: count, ${MEASURE_FUNCTIONS.join(', ')}`;
  if (!Object.hasOwn(grammar.measures, field))
    return `unknown field ${quoted(field)} in ${quoted(text)}; numeric fields: ${fields}`;
  const rule = grammar.measures[field]!;
  return { name: `${fn}(${field})`, fn, field, column: rule.column, fromCents: rule.fromCents };
}

function groupOf(grammar: AggregateGrammar, text: string, admin: boolean): GroupKey | string {
  const fields = [
    ...Object.keys(grammar.groups),
    ...Object.keys(grammar.timeFields).map((field) => `${field}:${TIME_BUCKETS.join('|')}`),
  ].join(', ');
  if (Object.hasOwn(grammar.groups, text)) {
    const rule = grammar.groups[text]!;
    if (rule.adminOnly && !admin)
      throw AppError.forbidden(`Only an administrator may group ${grammar.resource} by ${text}`);
    return { name: text, column: rule.column, type: rule.type };
  }
  if (Object.hasOwn(grammar.timeFields, text)) return `${text} groups by a bucket: ${text}:${TIME_BUCKETS.join('|')}`;
  const bucketed = BUCKETED.exec(text);
  if (!bucketed || !Object.hasOwn(grammar.timeFields, bucketed[1]!))
    return `unknown group ${quoted(text)}; groups: ${fields}`;
  const [, field, bucket] = bucketed as unknown as [string, string, string];
  if (!isOneOf(TIME_BUCKETS, bucket))
    return `unknown bucket ${quoted(bucket)} of ${field}; buckets: ${TIME_BUCKETS.join(', ')}`;
  return { name: `${field}:${bucket}`, column: grammar.timeFields[field]!.column, type: 'bucket', bucket };
}

/**
 * Reads `measures`, `groupBy`, `sort` and `limit` against the grammar. Every unknown measure,
 * function, field, bucket or sort key is a 422 naming the parameter and the text; a group only
 * administrators may use is a 403 for anyone else. `count` is always measured (an average needs it,
 * and a group's size is what a client reads first); `limit` is clamped to 1..1000 as lists clamp theirs.
 */
export function parseAggregate(
  grammar: AggregateGrammar,
  request: AggregateRequest,
  asker: { admin: boolean },
): AggregateQuery {
  const details: ErrorDetail[] = [];
  const measures: Measure[] = [COUNT];
  const measureItems = itemsOf(request.measures);
  if (measureItems.length > MAX_MEASURES)
    details.push({ field: 'measures', message: `takes at most ${MAX_MEASURES} measures` });
  else {
    for (const text of measureItems) {
      const measure = measureOf(grammar, text);
      if (typeof measure === 'string') details.push({ field: 'measures', message: measure });
      else if (!measures.some((known) => known.name === measure.name)) measures.push(measure);
    }
  }
  const groups: GroupKey[] = [];
  const groupItems = itemsOf(request.groupBy);
  if (groupItems.length > MAX_GROUP_KEYS)
    details.push({ field: 'groupBy', message: `takes at most ${MAX_GROUP_KEYS} group keys` });
  else {
    for (const text of groupItems) {
      const group = groupOf(grammar, text, asker.admin);
      if (typeof group === 'string') details.push({ field: 'groupBy', message: group });
      else if (groups.some((known) => known.name === group.name))
        details.push({ field: 'groupBy', message: `names ${quoted(text)} twice` });
      else groups.push(group);
    }
  }
  const sort: AggregateSortKey[] = [];
  for (const text of itemsOf(request.sort)) {
    const descending = text.startsWith('-');
    const name = descending ? text.slice(1) : text;
    const group = groups.find((known) => known.name === name);
    const measure = group ? undefined : measureOf(grammar, name);
    if (!group && typeof measure === 'string') {
      details.push({ field: 'sort', message: `${quoted(text)} is neither a group key of groupBy nor a measure` });
      continue;
    }
    const by = group ? { group } : { measure: measure as Measure };
    sort.push({ by, direction: descending ? DESCENDING : ASCENDING });
  }
  if (details.length > 0) throw AppError.validation(details);
  const limit = Math.min(AGGREGATE_LIMITS.maxLimit, Math.max(1, request.limit ?? AGGREGATE_LIMITS.defaultLimit));
  return { measures, groups, sort, limit };
}

/** Reads `facets=` (a comma list) against the grammar's facets: unknown names are a 422 naming `facets`. */
export function parseFacets(grammar: AggregateGrammar, text: string | readonly string[] | undefined): string[] {
  const names = [...new Set(itemsOf(text))];
  const unknown = names.filter((name) => !grammar.facets.includes(name));
  if (unknown.length > 0) {
    throw AppError.validation([
      {
        field: 'facets',
        message: `unknown facet ${unknown.map(quoted).join(', ')}; facets: ${grammar.facets.join(', ')}`,
      },
    ]);
  }
  return names;
}
