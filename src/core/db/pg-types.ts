import pg from 'pg';

const INT8 = 20;
const TIMESTAMPTZ = 1184;

/** Counts come back as numbers and timestamps as the same ISO strings SQLite stores. */
export function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8) return Number;
  if (oid === TIMESTAMPTZ) return parseTimestamptz;
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}

/** PostgreSQL's text form of a timestamptz in a UTC session: `2025-01-01 00:00:00.123456+00`. */
const UTC_TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * The ISO string of a timestamptz, milliseconds truncated as `Date` does. The UTC form is rewritten
 * directly: `new Date()` on PostgreSQL's format takes V8's slow legacy parser, a visible share of the
 * CPU of a nested GraphQL query. Any other offset goes through Date.
 */
export function parseTimestamptz(value: string): string {
  const match = UTC_TIMESTAMPTZ.exec(value);
  if (!match) return new Date(value).toISOString();
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}
