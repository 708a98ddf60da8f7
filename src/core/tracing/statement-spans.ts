import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { dialectOf, observeQueries, type Db } from '../db/database.ts';

/** `db.system.name` of SQLite: still in the conventions' incubating set, so copied here as their guide advises. */
const DB_SYSTEM_NAME_VALUE_SQLITE = 'sqlite';

interface Summary {
  /** The main statement's keyword: `SELECT`, `INSERT`, ... (`BEGIN`, `COMMIT` for those). */
  operation: string;
  /** `{operation} {table}` (the conventions' `db.query.summary`), or the operation alone. */
  summary: string;
}

const NAME = String.raw`((?:"[^"]+"|[a-z_][\w$]*)(?:\.(?:"[^"]+"|[a-z_][\w$]*))?)`;
const FIRST_WORD = /^\s*([a-z]+)/i;
const MAIN = /\b(select|insert|update|delete)\b/i;
const TARGET: Record<string, RegExp> = {
  SELECT: new RegExp(String.raw`\bfrom\s+${NAME}`, 'i'),
  DELETE: new RegExp(String.raw`\bfrom\s+${NAME}`, 'i'),
  INSERT: new RegExp(String.raw`\binto\s+${NAME}`, 'i'),
  UPDATE: new RegExp(String.raw`\bupdate\s+${NAME}`, 'i'),
};

/** The statement without what its parentheses hold (subqueries, CTE bodies, column lists): its outer level. */
function outerLevel(sql: string): string {
  let text = sql;
  for (let previous = ''; previous !== text;) {
    previous = text;
    text = text.replace(/\([^()]*\)/g, ' ');
  }
  return text;
}

/** Statement texts whose attributes are kept: the statements are the repositories' own, a bounded set. */
const MAX_STATEMENTS = 2000;

/**
 * The statement's main operation and the table it acts on, read from its outer level (so a subquery's
 * table, or a CTE's, does not name a statement): `SELECT products`, `INSERT posts` for
 * `with ... insert into posts ...`; `BEGIN`, `COMMIT` alone.
 */
export function summarize(sql: string): Summary {
  const outer = outerLevel(sql);
  const first = (FIRST_WORD.exec(outer)?.[1] ?? 'statement').toUpperCase();
  const main = first === 'WITH' ? MAIN.exec(outer) : null;
  const operation = main ? main[1]!.toUpperCase() : first;
  const pattern = TARGET[operation];
  const target = pattern?.exec(main ? outer.slice(main.index) : outer)?.[1]?.replaceAll('"', '');
  return { operation, summary: target ? `${operation} ${target}` : operation };
}

/**
 * A client span per statement `db` runs inside a traced operation (none for a background job's own
 * polling, which would make a trace of each poll), from the statement listeners `createDatabase` keeps
 * (core/db/database-observers.ts): the listener hears of a statement once it ran, with its duration, so
 * the span is recorded after the fact with its start and end. Only the statement's text goes in, with
 * its placeholders (DECISIONS §13: no value is ever part of the text); never a bound value, never a
 * database error's message (it can quote one).
 */
export function observeStatements(tracer: Tracer, db: Db): void {
  const system = dialectOf(db) === 'postgres' ? DB_SYSTEM_NAME_VALUE_POSTGRESQL : DB_SYSTEM_NAME_VALUE_SQLITE;
  // A statement's attributes, summarized once (the SDK copies them into each span).
  const attributesOf = new Map<string, Attributes>();
  observeQueries(db, (sql, durationMs, failed) => {
    const under = context.active();
    if (!trace.getSpan(under)?.isRecording()) return;
    // Epoch milliseconds with a fraction: a statement often takes less than one.
    const end = performance.timeOrigin + performance.now();
    let attributes = attributesOf.get(sql);
    if (!attributes) {
      const { operation, summary } = summarize(sql);
      attributes = Object.freeze({
        [ATTR_DB_SYSTEM_NAME]: system,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_SUMMARY]: summary,
        [ATTR_DB_QUERY_TEXT]: sql,
      });
      if (attributesOf.size >= MAX_STATEMENTS) attributesOf.clear();
      attributesOf.set(sql, attributes);
    }
    const name = attributes[ATTR_DB_QUERY_SUMMARY] as string;
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime: end - durationMs, attributes }, under);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(end);
  });
}
