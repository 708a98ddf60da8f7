import { AGGREGATE_LIMITS, MAX_GROUP_KEYS, TIME_BUCKETS, type AggregateGrammar } from './aggregate-grammar.ts';
import type { AggregateRequest } from './aggregate-parse.ts';

/**
 * A resource's aggregate in GraphQL (DECISIONS §14: "same grammar in GraphQL"), made from the same
 * declaration as the REST route (aggregate-grammar.ts): the arguments are REST's parameters as lists,
 * read by the same parser through the same service call. GraphQL has no map type, so a group's key is
 * an object with one nullable field per group field (`OrderGroupKey`), a time field's value being the
 * start of its bucket, and each measure function an object with one field per numeric field.
 */

/** `<Type>GroupKey`, `<Type>Measures`, `<Plural>AggregateGroup` and `<Plural>Aggregate`. */
export function graphqlAggregateTypeDefs(grammar: AggregateGrammar, typeName: string, pluralName: string): string {
  const groupFields = Object.entries(grammar.groups).map(([name, rule]) => {
    const who = rule.adminOnly ? ' Administrators only.' : '';
    return `    """\n    With \`groupBy: ["${name}"]\`: the group's ${name}; else null.${who}\n    """\n    ${name}: ${rule.type === 'integer' ? 'ID' : 'String'}`;
  });
  const timeFields = Object.keys(grammar.timeFields).map(
    (name) =>
      `    """\n    With \`groupBy: ["${name}:month"]\` (or another bucket): the start of the group's bucket, ISO 8601 UTC; else null. \`bucket\` picks one when groupBy buckets ${name} twice.\n    """\n    ${name}(bucket: String): String`,
  );
  const measures = Object.keys(grammar.measures).map((name) => `    ${name}: Float`);
  const measured = (fn: string) =>
    `    """\n    With \`measures: ["${fn}(f)"]\` for a numeric field f; else null.\n    """\n    ${fn}: ${typeName}Measures`;
  return `  """
  A group of an aggregate of ${grammar.resource}: the values of its groupBy keys.
  """
  type ${typeName}GroupKey {
${[...groupFields, ...timeFields].join('\n')}
  }

  """
  A measure function over the numeric fields of ${grammar.resource} (money in currency units from exact cents; averages rounded half-even to cents).
  """
  type ${typeName}Measures {
${measures.join('\n')}
  }

  type ${pluralName}AggregateGroup {
    key: ${typeName}GroupKey!
    count: Int!
${['sum', 'avg', 'min', 'max'].map(measured).join('\n')}
  }

  type ${pluralName}Aggregate {
    """
    How many groups match (data holds the first \`limit\`).
    """
    groups: Int!
    data: [${pluralName}AggregateGroup!]!
  }`;
}

/** The arguments of an aggregate field, after the resource's own (`filter`, `search`). */
export function graphqlAggregateArguments(grammar: AggregateGrammar): string {
  const groups = [
    ...Object.keys(grammar.groups),
    ...Object.keys(grammar.timeFields).map((field) => `${field}:${TIME_BUCKETS.join('|')}`),
  ].join(', ');
  const fields = Object.keys(grammar.measures).join(', ');
  return `"""
      count, sum(f), avg(f), min(f), max(f) over ${fields}; count is always given.
      """
      measures: [String!]
      """
      At most ${MAX_GROUP_KEYS} of ${groups}; time buckets in UTC, weeks from Monday.
      """
      groupBy: [String!]
      """
      Group keys of groupBy or measures as written (\`-sum(${Object.keys(grammar.measures)[0]})\`); a leading \`-\` is descending; default: the group keys ascending.
      """
      sort: [String!]
      """
      Groups in the answer, clamped between 1 and ${AGGREGATE_LIMITS.maxLimit}.
      """
      limit: Int = ${AGGREGATE_LIMITS.defaultLimit}`;
}

/** The aggregate's arguments as the service takes them (REST's parameters, as lists). */
export function aggregateRequestOf(args: {
  measures?: readonly string[] | null;
  groupBy?: readonly string[] | null;
  sort?: readonly string[] | null;
  limit?: number | null;
}): AggregateRequest {
  return {
    measures: args.measures ?? undefined,
    groupBy: args.groupBy ?? undefined,
    sort: args.sort ?? undefined,
    limit: args.limit ?? undefined,
  };
}

/** The group key's time fields: each the value of its bucket in the key (`createdAt:month`), the one `bucket` names when given. */
export function aggregateKeyResolvers(grammar: AggregateGrammar) {
  return Object.fromEntries(
    Object.keys(grammar.timeFields).map((field) => [
      field,
      (key: Readonly<Record<string, unknown>>, args: { bucket?: string | null }) => {
        const name = Object.keys(key).find((k) =>
          args.bucket ? k === `${field}:${args.bucket}` : k.startsWith(`${field}:`),
        );
        return name === undefined ? null : key[name];
      },
    ]),
  );
}
