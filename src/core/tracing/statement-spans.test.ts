import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { sql } from 'kysely';
import { createDatabase } from '../db/database.ts';
import { observeStatements, summarize } from './statement-spans.ts';

describe('statement span names (db.query.summary)', () => {
  it('names the main operation and its table, not a subquery’s', () => {
    const sql =
      'select "products".*, (select coalesce(sum("n"), 0) as "n" from "product_counts" where "category" = ?) as "total" from "products" where "category" = ?';
    assert.deepEqual(summarize(sql), { operation: 'SELECT', summary: 'SELECT products' });
  });

  it('names a statement with CTEs by what follows them', () => {
    const sql =
      'with "writer_key" as (select pg_advisory_xact_lock_shared(1, 1) as "taken"), "created_event" as (insert into "events" ("id") select $1 from "writer_key") insert into "posts" ("title") select $2 from "writer_key" returning *';
    assert.deepEqual(summarize(sql), { operation: 'INSERT', summary: 'INSERT posts' });
  });

  it('names updates, deletes, schema-qualified tables, and statements without a table', () => {
    assert.equal(summarize('update "users" set "name" = $1 where "id" = $2').summary, 'UPDATE users');
    assert.equal(
      summarize('delete from "webhook_deliveries" where "id" = any($1)').summary,
      'DELETE webhook_deliveries',
    );
    assert.equal(summarize('insert into "audit"."log" ("a") values (?)').summary, 'INSERT audit.log');
    assert.equal(summarize('begin').summary, 'BEGIN');
    assert.equal(summarize('select 1').summary, 'SELECT');
  });
});

describe('statement spans', () => {
  it('are children of the active span, one per statement, a failed one an error with no message, no value in any', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'statement-test' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('statement-test');
    const contexts = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contexts);
    const db = createDatabase('sqlite::memory:');
    observeStatements(tracer, db);
    try {
      await sql`create table t (id integer primary key, name text not null)`.execute(db);
      const parent = tracer.startSpan('parent');
      await context.with(trace.setSpan(ROOT_CONTEXT, parent), async () => {
        await sql`insert into t (name) values (${'secret-value'})`.execute(db);
        await sql`insert into t (name) values (${null})`.execute(db).catch(() => {});
      });
      parent.end();
      const [inserted, failed] = exporter.getFinishedSpans();
      assert.equal(exporter.getFinishedSpans().length, 3, 'the table made outside any span has none');
      for (const span of [inserted!, failed!]) {
        assert.equal(span.name, 'INSERT t');
        assert.equal(span.parentSpanContext?.spanId, parent.spanContext().spanId);
        assert.equal(span.attributes['db.query.text'], 'insert into t (name) values (?)');
        assert.doesNotMatch(JSON.stringify(span.attributes), /secret-value/);
      }
      assert.deepEqual(inserted!.status, { code: SpanStatusCode.UNSET });
      assert.deepEqual(failed!.status, { code: SpanStatusCode.ERROR });
    } finally {
      await db.destroy();
      context.disable();
    }
  });
});
