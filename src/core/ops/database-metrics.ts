import { Gauge, type Registry } from 'prom-client';
import { observeQueries, poolStatsOf, type Db } from '../db/database.ts';
import { talliedHistogram } from './tallies.ts';

const STATEMENT_BUCKETS = [0.0005, 0.002, 0.01, 0.05, 0.25, 1];
const STATEMENT_KINDS = ['select', 'insert', 'update', 'delete', 'transaction', 'other'] as const;
type StatementKind = (typeof STATEMENT_KINDS)[number];
const TRANSACTION_WORDS = ['begin', 'commit', 'rollback', 'start transaction', 'savepoint', 'release'];

/**
 * The statement's kind from its first word. It runs for every statement: Kysely writes keywords in
 * lower case, so `startsWith` answers without allocating; other text (raw SQL) is lowered first.
 */
export function statementKind(sql: string): StatementKind {
  for (let pass = 0; pass < 2; pass += 1) {
    const text = pass === 0 ? sql : sql.slice(0, 20).trimStart().toLowerCase();
    if (text.startsWith('select')) return 'select';
    if (text.startsWith('insert')) return 'insert';
    if (text.startsWith('update')) return 'update';
    if (text.startsWith('delete')) return 'delete';
    if (TRANSACTION_WORDS.some((word) => text.startsWith(word))) return 'transaction';
  }
  return 'other';
}

/**
 * Pool gauges read on scrape, and a statement histogram fed by the database's statement hook.
 * Returns what stops observing the statements.
 */
export function observeDatabase(db: Db, registers: Registry[]): () => void {
  const statements = talliedHistogram({
    name: 'db_statement_duration_seconds',
    help: 'Time of each database statement, by kind (first keyword) and outcome',
    labelNames: ['statement', 'outcome'] as const,
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  // One cell per label pair, made once: the hook runs for every statement (tallies.ts).
  const cellsOf = (outcome: 'ok' | 'error') =>
    new Map(
      STATEMENT_KINDS.map((kind) => [
        kind,
        statements.cell(`${kind} ${outcome}`, () => ({ statement: kind, outcome })),
      ]),
    );
  const ok = cellsOf('ok');
  const failed = cellsOf('error');
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections by state: in_use (lent out), idle (open, free)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = poolStatsOf(db);
      this.set({ state: 'in_use' }, stats.total - stats.idle);
      this.set({ state: 'idle' }, stats.idle);
    },
  });
  new Gauge({
    name: 'db_pool_waiting_requests',
    help: 'Callers waiting for a database connection',
    registers,
    collect() {
      this.set(poolStatsOf(db).waiting);
    },
  });
  new Gauge({
    name: 'db_pool_max_connections',
    help: 'The most connections the pool opens (DATABASE_POOL_SIZE; 1 on SQLite)',
    registers,
    collect() {
      this.set(poolStatsOf(db).max);
    },
  });
  return observeQueries(db, (sql, durationMs, error) => {
    (error ? failed : ok).get(statementKind(sql))!.observe(durationMs / 1000);
  });
}
