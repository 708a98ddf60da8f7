import { AppError } from '../errors/app-error.ts';
import { MAX_DB_INTEGER } from '../validation/input-rules.ts';
import type { FilterValue } from './list-grammar.ts';

/**
 * Where a page ends, as the next page's `cursor` carries it: the sort values and id of the last
 * item, how many items came before the next one (for `page` and `hasPrev`), and the fingerprint of
 * the filters and sort it was made for. Opaque to clients (base64url JSON); nothing in it becomes SQL
 * text: its values are checked by type (`KeyKind`) and bound.
 */
export interface CursorPosition {
  /** One per sort key, then the id. */
  values: (FilterValue | null)[];
  offset: number;
}

/** What a key's value may be: its type and whether it may be null. */
export interface KeyKind {
  type: 'integer' | 'number' | 'timestamp' | 'boolean' | 'enum' | 'text';
  nullable: boolean;
}

export function encodeCursor(fingerprint: string, position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ f: fingerprint, v: position.values, o: position.offset })).toString('base64url');
}

const refused = (message: string) => AppError.validation([{ field: 'cursor', message }]);

/** The position of a cursor made for `fingerprint` over keys of `kinds`; anything else is a 422 naming `cursor`. */
export function decodeCursor(text: string, fingerprint: string, kinds: readonly KeyKind[]): CursorPosition {
  let decoded: unknown;
  try {
    decoded = /^[A-Za-z0-9_-]+$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
  } catch {
    decoded = undefined;
  }
  const { f, v, o } = (decoded ?? {}) as { f?: unknown; v?: unknown; o?: unknown };
  if (typeof f !== 'string' || !Array.isArray(v) || typeof o !== 'number')
    throw refused('is not a cursor of this list');
  if (f !== fingerprint) {
    throw refused('was made for other filters or another sort: send the same ones, or start again without it');
  }
  if (v.length !== kinds.length || !v.every((value, index) => fits(value, kinds[index]!))) {
    throw refused('is not a cursor of this list');
  }
  if (!Number.isSafeInteger(o) || o < 0) throw refused('is not a cursor of this list');
  return { values: v as (FilterValue | null)[], offset: o };
}

function fits(value: unknown, kind: KeyKind): boolean {
  if (value === null) return kind.nullable;
  switch (kind.type) {
    case 'integer':
      return Number.isInteger(value) && Math.abs(value as number) <= MAX_DB_INTEGER + 1;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      // SQLite reads a boolean column as 0/1, PostgreSQL as true/false: either is bound back as it came.
      return typeof value === 'boolean' || value === 0 || value === 1;
    case 'timestamp':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'enum':
    case 'text':
      return typeof value === 'string' && value.length <= 10_000;
  }
}
