/**
 * SQL injection payloads and the marks of a database error, for test/security/sql-injection.test.ts
 * (DECISIONS §13: nothing a client sends becomes SQL text; no database error text reaches a client).
 *
 * Each payload is sent in place of one input's value. `JUNK` is the control: plain text that is not
 * SQL and not a value of any closed set. An input that refuses junk must refuse an expression-shaped
 * payload too; if it accepts the expression, the expression reached somewhere junk did not: the SQL
 * text (issue 51: `order=asc,(select sqlite_version())` answered 200 where `order=x` answered 500).
 */

export type Shape = 'junk' | 'error' | 'expression' | 'time';

/** Plain junk: not SQL, not a field, not a value of any closed set. */
export const JUNK = 'zzjunkzz';

/** Values that break a statement they are copied into: an unbalanced quote, a dangling comma, a comment. */
export const ERROR_SHAPED = [
  "'",
  '"',
  'asc,',
  '--',
  'asc --',
  "x' or '1'='1",
  'asc nulls first; drop table users--',
] as const;

/**
 * Values that are valid SQL where a direction or an expression is written: a database that accepts one
 * ran it (a subselect in ORDER BY, a tautology in WHERE).
 */
export const EXPRESSION_SHAPED = [
  'asc,(select 1)',
  'desc, (SELECT 1)',
  '1) or (1=1',
  'asc,(case when (select 1)=1 then 1 else 2 end)',
] as const;

/** Every payload of a shape, with its shape. */
export type Payloads = readonly (readonly [Shape, string])[];

const shaped = (shape: Shape, values: readonly string[]): Payloads => values.map((value) => [shape, value] as const);

/**
 * Three sets, so the suite stays within a minute per database: every input gets at least `MINIMAL`
 * (junk and an ORDER BY subselect); the inputs where a value may meet SQL get `FULL`.
 */
export const PAYLOADS: Record<'full' | 'core' | 'minimal', Payloads> = {
  full: [['junk', JUNK], ...shaped('error', ERROR_SHAPED), ...shaped('expression', EXPRESSION_SHAPED)],
  core: [
    ['junk', JUNK],
    ['error', "'"],
    ['error', 'asc,'],
    ['expression', 'asc,(select 1)'],
    ['expression', '1) or (1=1'],
  ],
  minimal: [
    ['junk', JUNK],
    ['expression', 'asc,(select 1)'],
  ],
};

function heavyCte(rows: number): string {
  return `with recursive c(x) as (select 1 union all select x+1 from c limit ${rows}) select count(*) from c`;
}

/**
 * Rows of the SQLite recursive CTE that takes about `targetMs` on this machine: measured once (a
 * million rows, in memory) and scaled, so a fast machine is not handed a payload too cheap to notice.
 */
export async function sqliteHeavyRows(targetMs = 2000): Promise<number> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(':memory:');
  try {
    const sample = 1_000_000;
    const started = performance.now();
    db.prepare(`select (${heavyCte(sample)})`).get();
    const perRow = (performance.now() - started) / sample;
    return Math.min(60_000_000, Math.max(sample, Math.round(targetMs / perRow)));
  } finally {
    db.close();
  }
}

/** Payloads that take seconds if the database runs them: `pg_sleep(2)`, or a CTE of `sqliteRows` rows. */
export function timeBased(dialect: 'sqlite' | 'postgres', sqliteRows: number): Payloads {
  if (dialect === 'postgres') return shaped('time', ['asc,(select pg_sleep(2))', 'desc, (SELECT 1 FROM pg_sleep(2))']);
  const cte = heavyCte(sqliteRows);
  return shaped('time', [`asc,(${cte})`, `desc, (SELECT 1 FROM (${cte}))`]);
}

/** Query parameter names people guess for sorting and filtering, whether or not a route declares them. */
export const GUESSED_PARAMETERS = [
  'order',
  'dir',
  'direction',
  'orderBy',
  'order_by',
  'sort_by',
  'sortBy',
  'sort',
  'filter',
  'where',
  'q',
  'search',
  'fields',
] as const;

/** Guessed names that only act beside a sort (a direction): also sent with a valid `sort`. */
export const GUESSED_DIRECTIONS = ['order', 'dir', 'direction'] as const;

/**
 * The phrasing of PostgreSQL, SQLite and Kysely errors (and of SQL itself), as it would reach a body
 * that leaked one. Left out on purpose: a bare `operator` (the list grammar's 422s name operators), a
 * bare `relation "` (`include`'s 422 says `unknown relation "x"`), a bare `does not exist` (GraphQL's
 * `Value "x" does not exist in "UserOrder" enum`) and `order` or `select` alone.
 */
export const DATABASE_TEXT = new RegExp(
  [
    'syntax error',
    'SQLITE',
    'sqlite_',
    'near "[^"]*":',
    'pg_',
    'relation "[^"]*" does not exist',
    'column "[^"]*" (?:does not exist|of relation|must appear)',
    'function \\S+ does not exist',
    'no such (?:column|table|function)',
    'ordering operator',
    'operator does not exist',
    'ORDER BY',
    'SELECT ',
    'FROM "',
    'bind message',
    'prepared statement',
    'unterminated quoted',
    'invalid input syntax',
    'current transaction is aborted',
    'at character \\d',
    'kysely',
    'canceling statement',
  ].join('|'),
  'i',
);

/** Every way a payload may be echoed: as sent, JSON-escaped, percent-encoded, form-encoded. */
function encodings(payload: string): string[] {
  return [
    ...new Set([
      payload,
      JSON.stringify(payload).slice(1, -1),
      encodeURIComponent(payload),
      new URLSearchParams({ x: payload }).toString().slice(2),
      encodeURI(payload),
    ]),
  ];
}

function stringsOf(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      stringsOf(item, into);
    }
  return into;
}

/**
 * The first database error mark in an answer's text, or undefined. An error message may quote the
 * client's value or a piece of it (`cannot sort by "(SELECT 1)"`), and a stored value may come back in
 * a list, which is no leak: every string of a JSON body is read with the quoted pieces of a payload
 * and every whole payload (in any encoding) taken out first.
 */
export function databaseTextIn(text: string, payloads: readonly string[]): string | undefined {
  let strings: string[];
  try {
    strings = stringsOf(JSON.parse(text), []);
  } catch {
    strings = [text];
  }
  const forms = payloads.flatMap(encodings).sort((a, b) => b.length - a.length);
  const quotesPayload = (inner: string) => inner.length > 0 && forms.some((form) => form.includes(inner));
  for (const string of strings) {
    let rest = string.replace(/"([^"]*)"/g, (quoted, inner: string) => (quotesPayload(inner) ? '""' : quoted));
    for (const form of forms) if (DATABASE_TEXT.test(form)) rest = rest.split(form).join('');
    const mark = DATABASE_TEXT.exec(rest)?.[0];
    if (mark) return mark;
  }
  return undefined;
}
