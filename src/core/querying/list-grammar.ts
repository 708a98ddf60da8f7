import type { SortDirection } from '../db/sort-direction.ts';

/**
 * The query grammar of a list (DECISIONS §12), declared once per resource as data: which fields a
 * client may filter and sort by, their types, their operators and who may use them. The module that
 * owns the list passes its grammar in (core names no module's table or column); from it come the
 * TypeBox query parameters (validation and the OpenAPI document: list-query-schema.ts), the parsed
 * conditions (list-query-parse.ts) and the SQL, always with bound values (list-sql.ts).
 */

export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'null'] as const;
export type Operator = (typeof OPERATORS)[number];

export type FieldType = 'integer' | 'number' | 'timestamp' | 'boolean' | 'enum' | 'text';

export interface FieldRule {
  /** The column it reads, as the module's own table names it. Never taken from a request. */
  column: string;
  /**
   * A text field read in several columns (a post's `search`: title or content): a condition holds
   * when it holds in any of them. Such a field only takes `contains` and does not sort.
   */
  anyOfColumns?: readonly string[];
  /** The operator of the plain `field=value` parameter: `eq` unless said otherwise (`search=x` is `contains`). */
  plainOperator?: Operator;
  type: FieldType;
  /** The allowed values of an `enum` field. */
  values?: readonly string[];
  /**
   * The values a `number` field's column can hold (a price: 0 to its largest, whole cents): stated in
   * the documents (`minimum`, `maximum`, `multipleOf`) and checked for every transport (`checkValue`).
   */
  bounds?: NumberBounds;
  /** Whether the column holds nulls: such a field takes `null` and sorts its nulls last. */
  nullable?: boolean;
  /** Operators other than the type's defaults (`operatorsOf`). */
  operators?: readonly Operator[];
  /** False for a field that filters but does not sort. */
  sortable?: boolean;
  /** Only administrators may filter or sort by it (a 403 for anyone else). */
  adminOnly?: boolean;
  /** Shown in the OpenAPI document beside each of its parameters. */
  description?: string;
  /**
   * The column's value of a checked request value, when they differ (an amount in currency units
   * stored in cents); undefined when the value has no column value (a third decimal): a 422.
   */
  encode?: (value: FilterValue) => FilterValue | undefined;
  /** What the 422 says of a value `encode` has no column value for: the fix ("at most two decimals"). */
  encodeError?: (value: FilterValue) => string;
}

export interface NumberBounds {
  minimum: number;
  maximum: number;
  /** A step (0.01: whole cents); REST's ajv checks it (multipleOfPrecision), `encode` again exactly. */
  multipleOf?: number;
}

export interface ListGrammar<F extends string = string> {
  /** The resource's name, for messages ("may not filter widgets by ..."). */
  resource: string;
  fields: Readonly<Record<F, FieldRule>>;
  /**
   * How ties break: by the id column, ascending (`'asc'`) or in the direction of the first sort key
   * (`'follow'`, the users list of the seed: `order=desc` reverses the ids too).
   */
  tieBreak: 'asc' | 'follow';
  /** The field named as the tie-breaker in the documents, when it is not `id` (a like has none: `userId`). */
  tieField?: string;
  /**
   * Whether the list takes the seed's `order` parameter (the users list alone): the direction of the
   * sort fields written without `-`. Any other list never reads `order`, whatever a request carries.
   */
  orderParameter?: boolean;
  /** The order when the request names none (`createdAt`): written as `sort` would be. Else the id's. */
  defaultSort?: string;
  /**
   * Fields whose plain equality parameter (`role=admin`) the module's query schema declares itself
   * (a parameter of the seed, kept exactly as it was).
   */
  seedParameters?: readonly NoInfer<F>[];
}

const ORDERED: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'];

/** The operators a field takes: its own list, or its type's (plus `null` when it is nullable). */
export function operatorsOf(rule: FieldRule): readonly Operator[] {
  if (rule.operators) return rule.operators;
  const byType: Record<FieldType, readonly Operator[]> = {
    integer: ORDERED,
    number: ORDERED,
    timestamp: ORDERED,
    text: [...ORDERED, 'contains'],
    enum: ['eq', 'ne', 'in'],
    boolean: ['eq', 'ne'],
  };
  return rule.nullable ? [...byType[rule.type], 'null'] : byType[rule.type];
}

export const isSortable = (rule: FieldRule): boolean => rule.sortable !== false;

/** Defines a grammar (an identity that checks its shape once, at start). */
export function defineListGrammar<F extends string>(grammar: ListGrammar<F>): ListGrammar<F> {
  for (const [name, rule] of Object.entries<FieldRule>(grammar.fields)) {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw new Error(`list grammar ${grammar.resource}: bad field ${name}`);
    if (rule.type === 'enum' && !rule.values?.length) {
      throw new Error(`list grammar ${grammar.resource}: enum field ${name} needs its values`);
    }
    if (operatorsOf(rule).includes('contains') && rule.type !== 'text') {
      throw new Error(`list grammar ${grammar.resource}: contains on non-text field ${name}`);
    }
    if (rule.plainOperator && !operatorsOf(rule).includes(rule.plainOperator)) {
      throw new Error(`list grammar ${grammar.resource}: ${name}'s plain operator is not one of its operators`);
    }
    if (rule.anyOfColumns && (isSortable(rule) || operatorsOf(rule).some((op) => op !== 'contains'))) {
      throw new Error(`list grammar ${grammar.resource}: ${name} reads several columns, so only contains, unsorted`);
    }
  }
  return grammar;
}

/** The longest `in` list: each length is a statement shape of its own (statement-cache.ts). */
export const MAX_IN_VALUES = 100;

/** `count` of DECISIONS §12: the seed's exact total, an estimate above `COUNT_EXACT_LIMIT` (a setting), or none. */
export const COUNT_MODES = ['exact', 'estimated', 'none'] as const;
export type CountMode = (typeof COUNT_MODES)[number];

/** Up to `COUNT_EXACT_LIMIT` rows, `count=estimated` is exact: DECISIONS §12's default of that setting. */
export const DEFAULT_COUNT_EXACT_LIMIT = 10_000;

/** A list's settings of the service's configuration (each module's services factory receives them). */
export interface ListSettings {
  /** `COUNT_EXACT_LIMIT`: up to this many rows, `count=estimated` counts them exactly. */
  countExactLimit: number;
  /**
   * `SEARCH_RANK_CANDIDATES`: a search in relevance order ranks the first this many matches the
   * database finds (those that pass the list's filters), not every match; 0 ranks every match.
   */
  searchRankCandidates: number;
}

/** DECISIONS §14 "Cost": the default bound of a relevance order (docs/SEARCH-SCALE.md says what it gives up). */
export const DEFAULT_SEARCH_RANK_CANDIDATES = 1000;

export const DEFAULT_LIST_SETTINGS: ListSettings = {
  countExactLimit: DEFAULT_COUNT_EXACT_LIMIT,
  searchRankCandidates: DEFAULT_SEARCH_RANK_CANDIDATES,
};

/** The list settings of a configuration (src/config): what a module hands its services factory. */
export const listSettingsOf = (config: {
  COUNT_EXACT_LIMIT: number;
  SEARCH_RANK_CANDIDATES?: number;
}): ListSettings => ({
  countExactLimit: config.COUNT_EXACT_LIMIT,
  searchRankCandidates: config.SEARCH_RANK_CANDIDATES ?? DEFAULT_SEARCH_RANK_CANDIDATES,
});

export type FilterValue = string | number | boolean;

/** One condition of a list's filter: a field of the grammar, an operator it takes, values checked by type. */
export interface Condition {
  field: string;
  column: string;
  /** The columns of a field read in several (`FieldRule.anyOfColumns`): any of them may hold. */
  anyOfColumns?: readonly string[];
  operator: Operator;
  /** `in`: the list; `null`: whether the value must be null; otherwise one value. */
  value: FilterValue | readonly FilterValue[];
}

export interface SortKey {
  field: string;
  column: string;
  direction: SortDirection;
  nullable: boolean;
}
