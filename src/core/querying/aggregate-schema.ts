import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { Named, Nullable } from '../http/schemas.ts';
import { MAX_DB_INTEGER } from '../validation/input-rules.ts';
import { commaListPattern, distinctListPattern, oneOfPattern } from '../validation/comma-list-patterns.ts';
import {
  AGGREGATE_LIMITS,
  MAX_FACET_VALUES,
  MAX_GROUP_KEYS,
  MAX_MEASURES,
  MEASURE_FUNCTIONS,
  TIME_BUCKETS,
  type AggregateGrammar,
} from './aggregate-grammar.ts';
import type { AggregateResult, FacetValue } from './aggregate-answer.ts';

/** The TypeBox schemas of an aggregate route and of `facets` on a list (validation and the OpenAPI documents). */

const measureNames = (grammar: AggregateGrammar) => Object.keys(grammar.measures).join(', ');

const groupNames = (grammar: AggregateGrammar) => [
  ...Object.keys(grammar.groups),
  ...Object.keys(grammar.timeFields).flatMap((field) => TIME_BUCKETS.map((bucket) => `${field}:${bucket}`)),
];

/** Every measure `measures` names: `count` and each function of each measured field (aggregate-parse.ts). */
const measureCalls = (grammar: AggregateGrammar) => [
  'count',
  ...MEASURE_FUNCTIONS.flatMap((fn) => Object.keys(grammar.measures).map((field) => `${fn}(${field})`)),
];

/** `measures`, `groupBy`, `sort` and `limit` of an aggregate route (its filters are the list's, added by the module). */
export function aggregateParameters(grammar: AggregateGrammar) {
  const admins = Object.entries(grammar.groups)
    .filter(([, rule]) => rule.adminOnly)
    .map(([name]) => name);
  return {
    measures: Type.Optional(
      Type.String({
        maxLength: 500,
        // As parseAggregate reads it: items trimmed, empty ones skipped, a repeat counted once.
        pattern: commaListPattern(oneOfPattern(measureCalls(grammar)), { emptyItems: true, maxItems: MAX_MEASURES }),
        description: `Comma list of count, sum(f), avg(f), min(f), max(f) over ${measureNames(grammar)}; count is always given`,
        examples: [`count,sum(${Object.keys(grammar.measures)[0]})`],
      }),
    ),
    groupBy: Type.Optional(
      Type.String({
        maxLength: 200,
        // As parseAggregate reads it: items trimmed, empty ones skipped, none twice.
        pattern: distinctListPattern(groupNames(grammar), '', { emptyItems: true, maxItems: MAX_GROUP_KEYS }),
        description: `Comma list (at most ${MAX_GROUP_KEYS}) of ${groupNames(grammar).join(', ')}; time buckets in UTC, weeks from Monday${admins.length > 0 ? `; ${admins.join(', ')}: administrators only` : ''}`,
      }),
    ),
    sort: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'Comma list of group keys of groupBy or measures as written (`-sum(amount)`); a leading `-` is descending; default: the group keys ascending',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        maximum: MAX_DB_INTEGER,
        description: `Groups in the answer: default ${AGGREGATE_LIMITS.defaultLimit}, clamped between 1 and ${AGGREGATE_LIMITS.maxLimit}`,
      }),
    ),
  };
}

const Measured = (grammar: AggregateGrammar, nullable: boolean) =>
  Type.Optional(
    Type.Object(
      Object.fromEntries(
        Object.keys(grammar.measures).map((field) => [
          field,
          Type.Optional(nullable ? Nullable(Type.Number()) : Type.Number()),
        ]),
      ),
    ),
  );

const KeyValue = Named(
  'AggregateKeyValue',
  Type.Union([Type.String(), Type.Integer(), Type.Null()], { description: 'A group key or facet value' }),
);
const FacetValueSchema = Named('FacetValue', Type.Object({ value: KeyValue, count: Type.Integer() }));

/**
 * The answer of an aggregate route: `{data: [{key, count, sum, avg, min, max}], groups}`. One schema for
 * the grammars of every version (products name their creation time per version): its keys are all of theirs.
 */
export function aggregateAnswerSchema(grammars: readonly [AggregateGrammar, ...AggregateGrammar[]], title: string) {
  const [grammar] = grammars;
  const names = [...new Set(grammars.flatMap(groupNames))];
  const key = Type.Object(Object.fromEntries(names.map((name) => [name, Type.Optional(KeyValue)])), {
    description: 'The group: one entry per groupBy key (a time bucket as the ISO timestamp of its start, UTC)',
  });
  const group = Type.Object({
    key,
    count: Type.Integer(),
    sum: Measured(grammar, false),
    avg: Measured(grammar, true),
    min: Measured(grammar, true),
    max: Measured(grammar, true),
  });
  const answer = Type.Object(
    {
      data: Type.Array(group),
      groups: Type.Integer({ description: 'How many groups match (data holds the first `limit`)' }),
    },
    { title, description: 'Money in currency units from exact cents; averages rounded half-even to cents' },
  );
  return Type.Unsafe<AggregateResult>(answer);
}

/** `facets` of a list's query: which facet counts to add beside the page. */
export function facetsParameter(grammar: AggregateGrammar): Record<string, TSchema> {
  return {
    facets: Type.Optional(
      Type.String({
        maxLength: 200,
        // As parseFacets reads it: items trimmed, empty ones skipped, a repeat counted once.
        pattern: commaListPattern(oneOfPattern(grammar.facets), { emptyItems: true }),
        description: `Comma list of ${grammar.facets.join(', ')}: each adds its values' counts over every match of the other filters (its own filter left out), at most ${MAX_FACET_VALUES}, most frequent first, ties by value`,
      }),
    ),
  };
}

/** A list's answer schema with the optional `facets` beside `data` and `pagination`. */
export function withFacets<T extends TObject>(page: T, grammar: AggregateGrammar) {
  const values = Type.Array(FacetValueSchema);
  const facets = Type.Object(Object.fromEntries(grammar.facets.map((name) => [name, Type.Optional(values)])));
  const { title } = page as { title?: string };
  const schema = Type.Object({ ...page.properties, facets: Type.Optional(facets) }, title ? { title } : {});
  return Type.Unsafe<Static<T> & { facets?: Record<string, FacetValue[]> }>(schema);
}
