import { Type, type TSchema } from 'typebox';
import { MAX_DB_INTEGER } from '../validation/input-rules.ts';
import { commaListPattern, distinctListPattern, oneOfPattern } from '../validation/comma-list-patterns.ts';
import {
  COUNT_MODES,
  MAX_IN_VALUES,
  isSortable,
  operatorsOf,
  type FieldRule,
  type ListGrammar,
  type Operator,
} from './list-grammar.ts';

/** The longest text a filter value may be (longer than any stored text field). */
export const MAX_FILTER_TEXT = 254;

const WORDS: Record<Operator, string> = {
  eq: 'equal to',
  ne: 'not equal to',
  gt: 'greater than',
  gte: 'greater than or equal to',
  lt: 'less than',
  lte: 'less than or equal to',
  in: 'one of (comma list)',
  contains: 'containing, case-insensitively,',
  null: 'null (`true`) or not null (`false`)',
};

/** The schema of one value of a field (ajv coerces the query string's text to it). */
export function valueSchemaOf(rule: FieldRule): TSchema {
  switch (rule.type) {
    case 'integer':
      return Type.Integer({ minimum: -MAX_DB_INTEGER - 1, maximum: MAX_DB_INTEGER });
    case 'number':
      return Type.Number({ ...rule.bounds });
    case 'timestamp':
      return Type.String({ format: 'date-time' });
    case 'boolean':
      return Type.Boolean();
    case 'enum':
      return Type.Enum([...rule.values!]);
    case 'text':
      return Type.String({ maxLength: MAX_FILTER_TEXT });
  }
}

function parameterSchema(name: string, rule: FieldRule, operator: Operator, bracketed: boolean): TSchema {
  const who = rule.adminOnly ? ' (administrators only)' : '';
  const about = rule.description ? ` (${rule.description})` : '';
  const description = `${name}${about} ${WORDS[operator]}${operator === 'null' ? '' : ' the value'}${who}`;
  if (operator === 'null') return Type.Boolean({ description });
  if (operator === 'in') {
    const item = IN_ITEMS[rule.type]?.(rule);
    return Type.String({ description, maxLength: 4096, ...(item ? { pattern: commaListPattern(item, IN_LIST) } : {}) });
  }
  // An enum's bracketed operators are text with a pattern of its values (what the parser accepts), not
  // an `enum`: an API console such as the /docs page fills every enum parameter with its first value, and
  // `role[ne]=user` beside `role=user` would empty the list it sends.
  if (rule.type === 'enum' && bracketed) {
    return Type.String({
      description: `${description}: one of ${rule.values!.join(', ')}`,
      maxLength: 100,
      pattern: `^${oneOfPattern(rule.values!)}$`,
    });
  }
  // `contains` with nothing to contain is a 422 (list-query-parse.ts): the document says so.
  if (operator === 'contains') return Type.String({ maxLength: MAX_FILTER_TEXT, minLength: 1, description });
  return { ...valueSchemaOf(rule), description };
}

/** An `in` list: at most MAX_IN_VALUES items, each trimmed by the parser (a repeated value counts once). */
const IN_LIST = { maxItems: MAX_IN_VALUES };

/**
 * The pattern of one item of an `in` list, for the types whose items a pattern says exactly (an
 * integer's range or a timestamp's calendar would not be: those lists are checked by the parser alone).
 */
const IN_ITEMS: Partial<Record<FieldRule['type'], (rule: FieldRule) => string>> = {
  enum: (rule) => oneOfPattern(rule.values!),
};

/**
 * The query parameters of a grammar's filters, to spread into the list's query schema: `field`
 * (equality, unless the module declares it as a seed parameter) and `field[op]` for each operator.
 * Bracketed names that are not here are refused by the parser (list-query-parse.ts), naming them.
 */
export function filterParameters(grammar: ListGrammar): Record<string, TSchema> {
  const properties: Record<string, TSchema> = {};
  for (const [name, rule] of Object.entries<FieldRule>(grammar.fields)) {
    const seed = grammar.seedParameters?.includes(name) ?? false;
    if (!seed) properties[name] = Type.Optional(parameterSchema(name, rule, rule.plainOperator ?? 'eq', false));
    for (const operator of operatorsOf(rule)) {
      properties[`${name}[${operator}]`] = Type.Optional(parameterSchema(name, rule, operator, true));
    }
  }
  return properties;
}

/** `count` and `cursor`, the parameters every queried page list adds. */
export const CountAndCursorParameters = {
  count: Type.Optional(
    Type.Enum([...COUNT_MODES], {
      description: `exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 2048,
      description: "A previous page's `nextCursor`, with the same filters and sort: the page right after it",
    }),
  ),
};

const sortableFields = (grammar: ListGrammar) =>
  Object.entries<FieldRule>(grammar.fields)
    .filter(([, rule]) => isSortable(rule))
    .map(([name]) => name);

/** What `parseSort` accepts: the sortable fields, each at most once, optionally with `-`; empty is no sort. */
export const sortPattern = (grammar: ListGrammar) =>
  distinctListPattern(sortableFields(grammar), '-?', { empty: true });

/** `sort` of a grammar: a comma list of its sortable fields, each with an optional leading `-`. */
export function sortParameter(grammar: ListGrammar) {
  const fields = sortableFields(grammar);
  return Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: sortPattern(grammar),
      description: `Comma-separated fields (${fields.join(', ')}); a leading \`-\` sorts that field descending; ties break by ${grammar.tieField ?? 'id'}, ${grammar.tieBreak === 'asc' ? 'ascending' : 'in the direction of the first field'}${grammar.defaultSort ? `; default ${grammar.defaultSort}` : ''}`,
    }),
  );
}

/** The query parameters a grammar adds to a page list: `sort`, `count`, `cursor` and the filters. */
export function listQueryParameters(grammar: ListGrammar): Record<string, TSchema> {
  return { sort: sortParameter(grammar), ...CountAndCursorParameters, ...filterParameters(grammar) };
}
