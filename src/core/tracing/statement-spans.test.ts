import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summarize } from './statement-spans.ts';

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
