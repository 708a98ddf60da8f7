import { AppError } from './errors/app-error.ts';

export interface PageRequest {
  page?: number | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

export interface PageWindow {
  page: number;
  limit: number;
  offset: number;
}

export interface PageRules {
  defaultLimit: number;
  maxLimit: number;
}

/**
 * The seed's page arithmetic, shared by every page-based list: page below 1 is raised to 1,
 * limit below 1 is raised to 1 and above the cap reduced to it, and an explicit offset wins over page.
 */
export function pageWindow(request: PageRequest, rules: PageRules): PageWindow {
  // Only finite numbers count: an undeclared query parameter can reach here as a string or an array.
  const finite = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const limit = Math.min(rules.maxLimit, Math.max(1, Math.trunc(finite(request.limit) ?? rules.defaultLimit)));
  const requestedOffset = finite(request.offset);
  if (requestedOffset !== undefined) {
    const offset = Math.max(0, Math.trunc(requestedOffset));
    return { page: Math.floor(offset / limit) + 1, limit, offset };
  }
  const page = Math.max(1, Math.trunc(finite(request.page) ?? 1));
  return { page, limit, offset: (page - 1) * limit };
}

export interface Page<T> {
  items: T[];
  total: number;
  window: PageWindow;
}

/** How a list reads one page: its rows in the window and the total of the whole list. */
export interface PageReads<Row> {
  rows(window: PageWindow): Promise<Row[]>;
  total(): Promise<number>;
}

/** One page of a list: the window from the request, then its rows and the total, read side by side. */
export async function readPage<Row, T>(
  request: PageRequest,
  rules: PageRules,
  reads: PageReads<Row>,
  toItem: (row: Row) => T,
): Promise<Page<T>> {
  const window = pageWindow(request, rules);
  const [rows, total] = await Promise.all([reads.rows(window), reads.total()]);
  return { items: rows.map(toItem), total, window };
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
}

export function paginationOf({ total, window }: Page<unknown>): Pagination {
  const { page, limit } = window;
  return {
    page,
    limit,
    total,
    totalPages: Math.ceil(total / limit),
    hasNext: page * limit < total,
    hasPrev: page > 1,
  };
}

/**
 * Parses a `fields` list against the names a resource exposes. `id` is always included;
 * unknown names are a 422 naming each of them.
 */
export function parseFields<F extends string>(raw: string | undefined, allowed: readonly F[]): F[] | undefined {
  if (raw === undefined) return undefined;
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !allowed.includes(name as F));
  if (unknown.length > 0) {
    throw AppError.validation(
      unknown.map((name) => ({ field: 'fields', message: `unknown field "${name}"; allowed: ${allowed.join(', ')}` })),
    );
  }
  return [...new Set(['id' as F, ...(names as F[])])];
}

/** Keeps only the selected fields of an object (all of them when no selection was made). */
export function pickFields<T extends object>(value: T, fields: readonly string[] | undefined): Partial<T> {
  if (!fields) return value;
  const picked: Partial<T> = {};
  for (const field of fields) {
    if (field in value) (picked as Record<string, unknown>)[field] = (value as Record<string, unknown>)[field];
  }
  return picked;
}
