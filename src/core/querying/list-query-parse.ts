import { hash } from 'node:crypto';
import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import type { PageRequest } from '../pagination.ts';
import { DATE_TIME_MESSAGE } from '../validation/ajv.ts';
import { MAX_DB_INTEGER } from '../validation/input-rules.ts';
import {
  MAX_IN_VALUES,
  OPERATORS,
  operatorsOf,
  type Condition,
  type CountMode,
  type FieldRule,
  type FilterValue,
  type ListGrammar,
  type ListSettings,
  type Operator,
  type SortKey,
} from './list-grammar.ts';
import { MAX_FILTER_TEXT } from './list-query-schema.ts';
import { ASCENDING, DESCENDING, type SortDirection } from '../db/sort-direction.ts';
import { SCORE_COLUMN } from '../search/search-source.ts';
import { toWebSearch, type SearchExpression } from '../search/web-search.ts';
import { parseCount, parseOrder, parseSort, type Asker, type SortRequest } from './list-sort-parse.ts';

export { parseCount, parseOrder, parseSort, type Asker, type SortRequest } from './list-sort-parse.ts';

/** A list request once read against its grammar: what the SQL is built from, and nothing else. */
export interface ListQuery {
  conditions: Condition[];
  /** The requested order, without the id that breaks ties (list-sql.ts adds it). */
  sort: SortKey[];
  /** The direction of the id that breaks ties (grammar's `tieBreak`). */
  idDirection: SortDirection;
  count: CountMode;
  /** `COUNT_EXACT_LIMIT` of the configuration: with `count=estimated`, totals up to it are exact. */
  countExactLimit: number;
  /** With a search in relevance order: how many of its matches are ranked (`ListSettings`); 0 all. */
  rankCandidates: number;
  cursor: string | undefined;
  /** Names the filters and sort: a cursor is only good for the query whose fingerprint it carries. */
  fingerprint: string;
  /** A full-text search (`q`, core/search): its rows only, each with its score. */
  search?: SearchExpression | undefined;
}

/** `sort=relevance`: best match first, the order of a search that names no other (DECISIONS §14). */
export const RELEVANCE: SortKey = { field: 'relevance', column: SCORE_COLUMN, direction: DESCENDING, nullable: false };

/** Who is asking, and the configured list settings the service was made with. */
export type ListContext = Asker & ListSettings;

const BRACKETED = /^([A-Za-z][A-Za-z0-9_]*)\[([A-Za-z]*)\]$/;
const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i;
const invalid = (field: string, message: string) => AppError.validation([{ field, message }]);

/**
 * The conditions of a list's query parameters: `field=value` (equality) for the grammar's fields and
 * `field[op]=value` for its operators. Any other bracketed parameter is a 422 naming it (an unknown
 * field, an unknown operator, one the field's type does not take); plain parameters that name no
 * field are the list's others (`page`, `sort`...) or are ignored, as the seed ignores them.
 */
export function parseFilters(
  grammar: ListGrammar,
  query: Readonly<Record<string, unknown>>,
  asker: Asker,
): Condition[] {
  const conditions: Condition[] = [];
  const details: ErrorDetail[] = [];
  const fields = grammar.fields as Readonly<Record<string, FieldRule>>;
  for (const [parameter, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    let name = parameter;
    let operator: Operator = 'eq';
    if (parameter.includes('[') || parameter.includes(']')) {
      const match = BRACKETED.exec(parameter);
      if (!match) {
        details.push({ field: parameter, message: 'is not a filter: write field[operator]=value' });
        continue;
      }
      name = match[1]!;
      if (!(OPERATORS as readonly string[]).includes(match[2]!)) {
        details.push({
          field: parameter,
          message: `unknown operator "${match[2]}"; operators: ${OPERATORS.join(', ')}`,
        });
        continue;
      }
      operator = match[2] as Operator;
      if (!Object.hasOwn(fields, name)) {
        details.push({
          field: parameter,
          message: `unknown field "${name}"; fields: ${Object.keys(fields).join(', ')}`,
        });
        continue;
      }
    } else if (!Object.hasOwn(fields, name)) {
      continue;
    } else {
      operator = fields[name]!.plainOperator ?? 'eq';
    }
    const rule = fields[name]!;
    if (!operatorsOf(rule).includes(operator)) {
      details.push({
        field: parameter,
        message: `operator "${operator}" does not apply to ${name}; it takes ${operatorsOf(rule).join(', ')}`,
      });
      continue;
    }
    if (rule.adminOnly && !asker.admin) {
      throw AppError.forbidden(`Only an administrator may filter ${grammar.resource} by ${name}`);
    }
    try {
      const value = valueOf(rule, operator, raw, parameter);
      const columns = rule.anyOfColumns ? { anyOfColumns: rule.anyOfColumns } : {};
      conditions.push({ field: name, column: rule.column, ...columns, operator, value });
    } catch (error) {
      if (!(error instanceof AppError) || !error.details) throw error;
      details.push(...error.details);
    }
  }
  if (details.length > 0) throw AppError.validation(details);
  return conditions;
}

function valueOf(rule: FieldRule, operator: Operator, raw: unknown, parameter: string): Condition['value'] {
  if (operator === 'null') return checkValue({ column: rule.column, type: 'boolean' }, raw, parameter);
  const encoded = (value: FilterValue) => {
    if (!rule.encode) return value;
    const column = rule.encode(value);
    if (column === undefined)
      throw invalid(parameter, rule.encodeError?.(value) ?? 'is not a value this field can hold');
    return column;
  };
  if (operator === 'in') {
    const items = Array.isArray(raw) ? raw : String(raw).split(',');
    const values = items.map((item) => (typeof item === 'string' ? item.trim() : item));
    if (values.length > MAX_IN_VALUES) throw invalid(parameter, `takes at most ${MAX_IN_VALUES} values`);
    return [...new Set(values.map((value) => encoded(checkValue(rule, value, parameter))))];
  }
  const value = checkValue(rule, raw, parameter);
  if (operator === 'contains' && value === '') throw invalid(parameter, 'must not be empty');
  return encoded(value);
}

/**
 * A value checked against its field's type, from the query string's text (or already coerced by
 * ajv, or from a GraphQL input): integers in the database's range, finite numbers, ISO 8601
 * timestamps (normalised to the stored form, UTC with milliseconds), booleans, an enum's values,
 * text of storable length. Anything else is a 422 naming the parameter.
 */
export function checkValue(
  rule: Pick<FieldRule, 'type' | 'values' | 'column' | 'bounds'>,
  raw: unknown,
  parameter: string,
): FilterValue {
  const text = typeof raw === 'string' ? raw : undefined;
  switch (rule.type) {
    case 'integer': {
      const value =
        typeof raw === 'number' ? raw : text !== undefined && /^-?\d{1,10}$/.test(text) ? Number(text) : NaN;
      if (!Number.isInteger(value) || value > MAX_DB_INTEGER || value < -MAX_DB_INTEGER - 1) {
        throw invalid(parameter, 'must be an integer');
      }
      return value;
    }
    case 'number': {
      const value = typeof raw === 'number' ? raw : text !== undefined && text.trim() !== '' ? Number(text) : NaN;
      if (!Number.isFinite(value)) throw invalid(parameter, 'must be a number');
      const { bounds } = rule;
      if (bounds && (value < bounds.minimum || value > bounds.maximum)) {
        throw invalid(parameter, `must be between ${bounds.minimum} and ${bounds.maximum}`);
      }
      return value;
    }
    case 'timestamp': {
      const time = text !== undefined && ISO_TIMESTAMP.test(text) ? Date.parse(text) : NaN;
      if (Number.isNaN(time)) throw invalid(parameter, DATE_TIME_MESSAGE);
      return new Date(time).toISOString();
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      if (text === 'true' || text === 'false') return text === 'true';
      throw invalid(parameter, 'must be true or false');
    }
    case 'enum': {
      if (text === undefined || !rule.values!.includes(text)) {
        throw invalid(parameter, `must be one of: ${rule.values!.join(', ')}`);
      }
      return text;
    }
    case 'text': {
      if (text === undefined || text.length > MAX_FILTER_TEXT)
        throw invalid(parameter, 'must be a text of storable length');
      return text;
    }
  }
}

export interface ListRequest extends SortRequest {
  count?: unknown;
  cursor?: string | undefined;
  /** Every query parameter: the filters are read from them. */
  parameters: Readonly<Record<string, unknown>>;
  /**
   * The list's own bounds, set by the module, never by the request (`{ post_id: 7 }`: a post's
   * comments): equalities on those columns, part of the fingerprint like any filter.
   */
  scope?: Readonly<Record<string, FilterValue>>;
  /**
   * Conditions the module read from parameters of its own (the products' seed filters, `min_price`...),
   * already typed: ANDed and fingerprinted like the grammar's.
   */
  conditions?: readonly Condition[];
  /** The module's own reading of `sort`, when the list keeps a rule of the seed for it (products' whitelist). */
  sortKeys?: readonly SortKey[];
  /** `q`, read (web-search.ts): sorted by relevance unless `sort` (or `sortKeys`) names another order. */
  search?: SearchExpression | undefined;
}

/** A list's options as a transport hands them to a service: the page, sort, count, cursor and filter parameters. */
export interface ListOptions extends PageRequest {
  sort?: string | undefined;
  order?: unknown;
  count?: string | undefined;
  cursor?: string | undefined;
  [parameter: string]: unknown;
}

/** The request of a list's options, within `scope` (see `ListRequest.scope`). */
export function listRequestOf(options: ListOptions, scope?: Readonly<Record<string, FilterValue>>): ListRequest {
  const { sort, order, count, cursor } = options;
  return { sort, order, count, cursor, parameters: options, ...(scope ? { scope } : {}) };
}

/** Reads a list request against its grammar: filters, sort, count and cursor. */
export function parseListQuery(grammar: ListGrammar, request: ListRequest, asker: ListContext): ListQuery {
  const scope = Object.entries(request.scope ?? {}).map(([column, value]): Condition => ({
    field: column,
    column,
    operator: 'eq',
    value,
  }));
  const conditions = [...scope, ...(request.conditions ?? []), ...parseFilters(grammar, request.parameters, asker)];
  const { search } = request;
  const relevance = search && (request.sort ?? 'relevance') === 'relevance' && !request.sortKeys?.length;
  const sort = relevance
    ? [RELEVANCE]
    : request.sortKeys
      ? [...request.sortKeys]
      : parseSort(grammar, { ...request, sort: request.sort ?? grammar.defaultSort }, asker);
  const idDirection =
    grammar.tieBreak === 'asc' ? ASCENDING : (sort[0]?.direction ?? parseOrder(grammar, request.order) ?? ASCENDING);
  return {
    conditions,
    sort,
    idDirection,
    count: parseCount(request.count),
    countExactLimit: asker.countExactLimit,
    rankCandidates: asker.searchRankCandidates,
    cursor: request.cursor,
    fingerprint: fingerprintOf(grammar, conditions, sort, idDirection, search && toWebSearch(search)),
    ...(search ? { search } : {}),
  };
}

/** A short hash of the filters and sort, in a canonical order (parameters' order does not matter). */
function fingerprintOf(
  grammar: ListGrammar,
  conditions: readonly Condition[],
  sort: readonly SortKey[],
  idDirection: string,
  search = '',
): string {
  const filters = conditions
    .map((c) => JSON.stringify([c.field, c.operator, c.value]))
    .sort()
    .join();
  const order = [...sort.map((key) => `${key.field} ${key.direction}`), `id ${idDirection}`].join();
  // A search is appended only when there is one: the cursors of lists without it keep their fingerprint.
  const searched = search === '' ? '' : `|${search}`;
  return hash('sha256', `${grammar.resource}|${filters}|${order}${searched}`, 'base64url').slice(0, 16);
}
