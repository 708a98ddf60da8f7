import { AppError } from '../errors/app-error.ts';
import { ASCENDING, DESCENDING, sortDirectionOf, type SortDirection } from '../db/sort-direction.ts';
import {
  COUNT_MODES,
  isSortable,
  type CountMode,
  type FieldRule,
  type ListGrammar,
  type SortKey,
} from './list-grammar.ts';

/** A list's `sort`, `order` and `count`, read against its grammar (list-query-parse.ts reads the rest). */

/** Who is asking: administrators may use the fields marked `adminOnly`. */
export interface Asker {
  admin: boolean;
}

const invalid = (field: string, message: string) => AppError.validation([{ field, message }]);

export interface SortRequest {
  /** A comma list of fields, each optionally with a leading `-` (descending). */
  sort?: string | undefined;
  /**
   * The seed's `order` of a list that has one (`ListGrammar.orderParameter`): the direction of the
   * fields written without `-`. Client text: read only through `sortDirectionOf`.
   */
  order?: unknown;
}

/**
 * The direction `order` names on a list that takes it (422 naming `order` for anything but `asc` or
 * `desc`); undefined when absent, and on every other list, whatever the request carries.
 */
export function parseOrder(grammar: ListGrammar, order: unknown): SortDirection | undefined {
  if (!grammar.orderParameter || order === undefined) return undefined;
  const direction = sortDirectionOf(order);
  if (direction === undefined) throw invalid('order', 'must be one of: asc, desc');
  return direction;
}

/** The sort keys of `sort` (422 naming `sort` for an unknown, unsortable or repeated field). */
export function parseSort(grammar: ListGrammar, request: SortRequest, asker: Asker): SortKey[] {
  const fields = grammar.fields as Readonly<Record<string, FieldRule>>;
  const order = parseOrder(grammar, request.order) ?? ASCENDING;
  const raw = request.sort?.trim();
  if (!raw) return [];
  const keys: SortKey[] = [];
  for (const item of raw.split(',').map((part) => part.trim())) {
    const descending = item.startsWith('-');
    const name = descending ? item.slice(1) : item;
    const rule = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!rule || !isSortable(rule)) {
      const sortable = Object.entries<FieldRule>(fields)
        .filter(([, r]) => isSortable(r))
        .map(([n]) => n);
      throw invalid('sort', `cannot sort by "${item}"; sortable: ${sortable.join(', ')}`);
    }
    if (keys.some((key) => key.field === name)) throw invalid('sort', `names ${name} twice`);
    if (rule.adminOnly && !asker.admin) {
      throw AppError.forbidden(`Only an administrator may sort ${grammar.resource} by ${name}`);
    }
    const direction = descending ? DESCENDING : order;
    keys.push({ field: name, column: rule.column, direction, nullable: rule.nullable === true });
  }
  return keys;
}

/** `count`: exact unless asked otherwise (a value outside the three is a 422 naming `count`). */
export function parseCount(raw: unknown): CountMode {
  if (raw === undefined) return 'exact';
  if (!(COUNT_MODES as readonly unknown[]).includes(raw))
    throw invalid('count', `must be one of: ${COUNT_MODES.join(', ')}`);
  return raw as CountMode;
}
