import { AppError } from '../errors/app-error.ts';
import type { QueriedPage } from './list-page.ts';
import { isSortable, operatorsOf, type FieldRule, type FieldType, type ListGrammar } from './list-grammar.ts';

/**
 * A grammar's GraphQL arguments (DECISIONS §12), made from the same definition as the REST
 * parameters: `filter: <Type>Filter` with one input per field holding its operators
 * (`{age: {gte: 18}, name: {contains: "ann"}}`), and `orderBy: [<Type>Order!]`, an enum of each
 * sortable field in each direction (`AGE_DESC`). Resolvers turn them back into the REST parameters
 * (`graphqlListParameters`), so the parser, its checks and its SQL are the one REST uses.
 */

const SCALAR: Record<FieldType, string> = {
  integer: 'Int',
  number: 'Float',
  timestamp: 'String',
  boolean: 'Boolean',
  enum: 'String',
  text: 'String',
};

const capitalised = (name: string) => name[0]!.toUpperCase() + name.slice(1);
/** `emailVerified` → `EMAIL_VERIFIED`. */
const constantOf = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** The SDL of `<typeName>Filter`, its per-field inputs and `<typeName>Order`. */
export function graphqlListTypeDefs(grammar: ListGrammar, typeName: string): string {
  const fields = Object.entries<FieldRule>(grammar.fields);
  const inputs = fields.map(([name, rule]) => {
    const scalar = SCALAR[rule.type];
    const members = operatorsOf(rule).map((operator) => {
      const type = operator === 'in' ? `[${scalar}!]` : operator === 'null' ? 'Boolean' : scalar;
      return `    ${operator}: ${type}`;
    });
    const about =
      rule.type === 'enum'
        ? ` (one of ${rule.values!.join(', ')})`
        : rule.type === 'timestamp'
          ? ' (ISO 8601 with a zone)'
          : '';
    const who = rule.adminOnly ? ' Administrators only.' : '';
    return `  """\n  Conditions on ${name}${about}, combined with AND.${who}\n  """\n  input ${typeName}${capitalised(name)}Filter {\n${members.join('\n')}\n  }`;
  });
  const filter = `  """\n  Conditions on ${grammar.resource}, combined with AND (docs/QUERYING.md).\n  """\n  input ${typeName}Filter {\n${fields
    .map(([name]) => `    ${name}: ${typeName}${capitalised(name)}Filter`)
    .join('\n')}\n  }`;
  const orders = fields
    .filter(([, rule]) => isSortable(rule))
    .flatMap(([name]) => [`    ${constantOf(name)}_ASC`, `    ${constantOf(name)}_DESC`]);
  const order = `  """\n  An order of ${grammar.resource}: a field and a direction; ties break by id, nulls last.\n  """\n  enum ${typeName}Order {\n${orders.join('\n')}\n  }`;
  return [...inputs, filter, order].join('\n\n');
}

/** The REST parameters (`age[gte]`, `sort`) of a GraphQL `filter` and `orderBy`. */
export function graphqlListParameters(
  grammar: ListGrammar,
  filter: Readonly<Record<string, Readonly<Record<string, unknown>> | null | undefined>> | null | undefined,
  orderBy: readonly string[] | null | undefined,
): { parameters: Record<string, unknown>; sort: string | undefined } {
  const parameters: Record<string, unknown> = {};
  for (const [field, operators] of Object.entries(filter ?? {})) {
    for (const [operator, value] of Object.entries(operators ?? {})) {
      if (value !== null && value !== undefined) parameters[`${field}[${operator}]`] = value;
    }
  }
  const names = new Map(Object.keys(grammar.fields).map((name) => [constantOf(name), name]));
  const sort = orderBy?.length
    ? orderBy
        .map((item) => {
          const descending = item.endsWith('_DESC');
          const name = names.get(item.replace(/_(ASC|DESC)$/, ''));
          return name === undefined ? item : `${descending ? '-' : ''}${name}`;
        })
        .join(',')
    : undefined;
  return { parameters, sort };
}

/**
 * `PageInfo`, shared by every connection: the cursor after a page's last node (`endCursor`, sent back
 * as `after`) and whether there is more. Part of the root shell (graphql/schema.ts), declared once.
 */
export const PAGE_INFO_TYPE_DEFS = /* GraphQL */ `
  """
  Where a connection's page ends (docs/QUERYING.md, "GraphQL").
  """
  type PageInfo {
    """
    Whether more nodes follow this page.
    """
    hasNextPage: Boolean!
    """
    Send as \`after\` (with the same filter and orderBy) for the next page; null on the last page.
    """
    endCursor: String
  }
`;

/** The SDL of `<typeName>Connection`: one page of a list by key (DECISIONS §12's cursor in GraphQL). */
export function graphqlConnectionTypeDefs(typeName: string): string {
  return `  """
  One page of ${typeName} nodes and where the next page starts.
  """
  type ${typeName}Connection {
    nodes: [${typeName}!]!
    pageInfo: PageInfo!
  }`;
}

/** A connection's value of a page: its nodes and where the next page starts. */
export function connectionOf<T>(page: QueriedPage<T>) {
  return { nodes: page.items, pageInfo: { hasNextPage: page.hasNext, endCursor: page.nextCursor } };
}

/** The GraphQL argument of a REST list parameter other than a filter's. */
const ARGUMENT_OF: Readonly<Record<string, string>> = {
  sort: 'orderBy',
  cursor: 'after',
  q: 'search',
  highlight: 'highlights.fields',
};

/**
 * A list's 422 with each REST parameter named as the GraphQL argument it came from (`filter.age.gte`,
 * `orderBy`, `after`). `renames` replaces some of those names (an aggregate's `sort` is its own argument).
 */
export function asGraphqlArguments(error: unknown, renames: Readonly<Record<string, string>> = {}): unknown {
  if (!(error instanceof AppError) || !error.details) return error;
  const argumentOf = { ...ARGUMENT_OF, ...renames };
  const details = error.details.map((detail) => {
    const bracketed = /^(\w+)\[(\w+)\]$/.exec(detail.field);
    if (bracketed) return { ...detail, field: `filter.${bracketed[1]}.${bracketed[2]}` };
    return Object.hasOwn(argumentOf, detail.field) ? { ...detail, field: argumentOf[detail.field]! } : detail;
  });
  return new AppError(error.code, error.message, { details, status: error.status });
}
