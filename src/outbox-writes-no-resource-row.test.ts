import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * The outbox and its consumers (modules/events, webhooks, broker) write only their own tables: each
 * resource's row is inserted by its own module's repository, typed against its table, and the outbox
 * wraps that insert without knowing the table (events/README.md, "A new row and its event in one
 * statement"). Read from the source, as dependency-cruiser cannot see a table name: every insert in
 * those folders' runtime files (Kysely's `insertInto`, `replaceInto`, `mergeInto`, or SQL text) must
 * name a table those folders declare, by a literal.
 */

const MODULES = resolve(import.meta.dirname, 'modules');
const OUTBOX_FOLDERS = ['events', 'webhooks', 'broker'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The tables `*.table.ts` files declare (`interface Tables { name: ... }`), as code-shape.test.ts reads them. */
function tablesDeclaredIn(paths: string[]): string[] {
  return paths
    .filter((path) => path.endsWith('.table.ts'))
    .flatMap((path) => {
      const block = /interface Tables \{([^}]*)\}/.exec(readFileSync(path, 'utf8'))?.[1] ?? '';
      return [...block.matchAll(/^\s*(\w+)\s*:/gm)].map((m) => m[1]!);
    });
}

const INSERT_CALLS = new Set(['insertInto', 'replaceInto', 'mergeInto']);
const SQL_INSERT = /\binsert\s+(?:or\s+\w+\s+)?into\s+"?(\w+)"?/gi;

/** The inserts in `source` into any table but `own` ones, or into a table named at run time. */
function foreignInserts(source: string, own: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile('scanned.ts', source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      INSERT_CALLS.has(node.expression.name.text)
    ) {
      let table = node.arguments[0];
      while (table && (ts.isAsExpression(table) || ts.isParenthesizedExpression(table))) table = table.expression;
      const named = table && ts.isStringLiteralLike(table) ? table.text : undefined;
      if (named === undefined || !own.has(named)) found.push(`${node.expression.name.text}(${table?.getText() ?? ''})`);
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      for (const match of node.text.matchAll(SQL_INSERT))
        if (!own.has(match[1]!)) found.push(`insert into ${match[1]}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const outboxFiles = OUTBOX_FOLDERS.flatMap((folder) => filesUnder(join(MODULES, folder)));
const own = new Set(tablesDeclaredIn(outboxFiles));
const resourceTables = tablesDeclaredIn(filesUnder(MODULES)).filter((table) => !own.has(table));

describe('the outbox and its consumers insert no resource row', () => {
  it("know their own tables and the resources' apart", () => {
    for (const table of ['events', 'event_consumers', 'webhook_endpoints', 'webhook_deliveries'])
      assert.ok(own.has(table), `${table} among ${[...own].join(', ')}`);
    for (const table of ['users', 'posts', 'comments', 'products', 'orders', 'comment_likes'])
      assert.ok(resourceTables.includes(table), `${table} among ${resourceTables.join(', ')}`);
  });

  it('insert only into their own tables, named by a literal, in events/, webhooks/ and broker/', () => {
    const inserts = outboxFiles
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
      .flatMap((path) =>
        foreignInserts(readFileSync(path, 'utf8'), own).map((insert) => `${relative(MODULES, path)}: ${insert}`),
      );
    assert.deepEqual(inserts, []);
  });

  it("catch a resource's insert written in any of the ways the scan reads", () => {
    const source = `
      // insertInto('posts') in a comment is no insert
      /** with "created_event" as (insert into "events" ...) insert into <the module's table> */
      await db.insertInto('events').values(row).execute();
      await db.insertInto('event_consumers' as never).values(row).execute();
      await db.insertInto('posts').values(row).execute();
      await anyTable(db).insertInto(table).values(row).returningAll().execute();
      await sql\`insert into users (name) values (\${name})\`.execute(db);
      const text = 'INSERT INTO "products" (name) VALUES ($1)';
      await db.replaceInto('comments').values(row).execute();
    `;
    assert.deepEqual(foreignInserts(source, own), [
      "insertInto('posts')",
      'insertInto(table)',
      'insert into users',
      'insert into products',
      "replaceInto('comments')",
    ]);
  });
});
