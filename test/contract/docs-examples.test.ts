import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { createDatabase } from '../../src/core/db/database.ts';
import { dialectNamed } from '../support/dialects.ts';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnServer } from '../support/child-server.ts';
import {
  blockOutput,
  docBlocks,
  docBlocksOf,
  pageScript,
  runPageScript,
  untilReady,
  withBaseUrl,
  type DocBlock,
} from '../support/doc-examples.ts';

/**
 * Every example of README.md and docs/*.md runs (Rust's doctests, applied to curl): each page's shell and
 * GraphQL blocks, in order, against a fresh server of its own started as `npm start` starts one on a
 * brand-new database (demo data, development), with the pages' `localhost:3000` replaced by its address.
 * A block fails on a non-zero exit, an HTTP status of 400 or more, or an empty answer
 * (test/support/doc-examples.ts); blocks marked `<!-- not run: reason -->` are listed, not run.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The environment of the examples' shell: the caller's, without what the test runner set for itself. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) if (name.startsWith('NODE_TEST') || name === 'NODE_OPTIONS') delete env[name];
  return env;
}

function describeBlock(page: string, block: DocBlock): string {
  return `${page}:${block.line} (\`\`\`${block.language})`;
}

/** Sections that run on their own, against a server they start themselves (the suite below). */
const SEPARATE = [{ page: 'README.md', section: 'On PostgreSQL', reason: 'run on PostgreSQL by its own test' }];

/** A page's blocks, those of a separately run section marked as not run here. */
function blocksOf(page: string): DocBlock[] {
  return docBlocksOf(join(ROOT, page)).map((block) => {
    const separate = SEPARATE.find((entry) => entry.page === page && entry.section === block.section);
    return separate && !block.notRun ? { ...block, notRun: separate.reason } : block;
  });
}

describe('the documentation examples run as written', { concurrency: true }, () => {
  for (const page of PAGES) {
    const blocks = blocksOf(page);
    const runnable = blocks.filter((block) => !block.notRun);
    const skipped = blocks.filter((block) => block.notRun);
    const notRun =
      skipped.length > 0 ? `; not run: ${skipped.map((b) => `line ${b.line} (${b.notRun})`).join('; ')}` : '';
    if (runnable.length === 0) {
      // Named all the same, so every exception shows in the run's output with its reason.
      if (skipped.length > 0) it(`${page}: no example block runs${notRun}`, () => {});
      continue;
    }
    it(`${page}: ${runnable.length} example block(s) on a fresh server${notRun}`, { timeout: 120_000 }, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'docs-examples-'));
      // What a fresh `npm start` in a clone has: development, demo data, a new SQLite file, no JWT_SECRET.
      // The examples' shell gets the same DATABASE_URL, so `npm run cli -- token` finds the server's
      // database and the development secret kept beside it (DECISIONS §1).
      const env: Record<string, string> = {
        NODE_ENV: 'development',
        DEMO_DATA: 'true',
        DATABASE_URL: `sqlite:${dir}/content.db`,
      };
      // The entry `npm start` runs: the compiled build while it is current, else the sources.
      const server = await spawnServer(env, ['serve'], 'bin/content-service.js');
      try {
        await untilReady(server.url);
        const run = await runPageScript(pageScript(blocks, server.url), {
          cwd: ROOT,
          env: shellEnv(env),
          timeoutMs: 90_000,
        });
        if (!run.done || run.code !== 0) {
          const block = run.failedBlock === null ? null : blocks[run.failedBlock]!;
          assert.fail(
            `${block ? describeBlock(page, block) : page} failed (exit ${run.code}):\n` +
              (block ? `${block.text}\n---\n${blockOutput(run, run.failedBlock!)}` : `${run.stdout}\n${run.stderr}`),
          );
        }
      } finally {
        server.process.kill('SIGTERM');
        await server.exited;
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

const postgres = dialectNamed('postgres');
const README_PG_URL = 'postgres://postgres@127.0.0.1:5432/content';
const README_CREATEDB = 'createdb -h 127.0.0.1 -U postgres content';

describe("the README's PostgreSQL section", { skip: postgres.skip }, () => {
  it(
    'runs as written on a database of its own: createdb, npm start, cli token on the same DATABASE_URL, the orders',
    { timeout: 180_000 },
    async () => {
      const blocks = docBlocksOf(join(ROOT, 'README.md')).filter((block) => block.section === 'On PostgreSQL');
      const text = blocks.map((block) => block.text).join('\n');
      assert.ok(text.includes(README_CREATEDB) && text.includes(README_PG_URL), text);
      assert.ok(
        blocks.some((block) => block.background && /npm start/.test(block.text)),
        'the server block runs in the background',
      );
      // The same commands on the suite's server, under a database name of its own.
      const admin = new URL(process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
      const name = `cs_readme_${process.pid}_${randomBytes(4).toString('hex')}`;
      const url = new URL(admin);
      url.pathname = `/${name}`;
      const createdb = `createdb -h ${admin.hostname} -p ${admin.port || 5432} -U ${admin.username || 'postgres'} ${name}`;
      const ours = blocks.map((block) => ({
        ...block,
        text: block.text.replaceAll(README_PG_URL, url.toString()).replaceAll(README_CREATEDB, createdb),
      }));
      const dir = await mkdtemp(join(tmpdir(), 'docs-postgres-'));
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      // A fresh clone's shell: development, no JWT_SECRET, no DATABASE_URL but the README's.
      const env = shellEnv({ NODE_ENV: 'development', PORT: String(port), TMPDIR: dir });
      for (const unset of ['JWT_SECRET', 'DATABASE_URL', 'DEMO_DATA']) delete env[unset];
      const run = await runPageScript(pageScript(ours, base), { cwd: ROOT, env, timeoutMs: 150_000 });
      try {
        if (!run.done || run.code !== 0) {
          const block = run.failedBlock === null ? null : ours[run.failedBlock]!;
          assert.fail(
            `README.md:${block?.line ?? '?'} failed (exit ${run.code}):\n` +
              (block ? `${block.text}\n---\n${blockOutput(run, run.failedBlock!)}` : `${run.stdout}\n${run.stderr}`),
          );
        }
        // The admin's order list: the demo data's three orders, through the token the CLI signed.
        assert.match(run.stdout, /"data":\[\{"id":/);
      } finally {
        await stopGroup(run.pid);
        await dropDatabase(admin, name);
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** SIGTERM to what the script left running (the server), then SIGKILL if it is still there after 10 s. */
async function stopGroup(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive()) process.kill(-pid, 'SIGKILL');
}

async function dropDatabase(admin: URL, name: string): Promise<void> {
  const db = createDatabase(admin.toString(), { poolSize: 1 });
  try {
    await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(db);
  } finally {
    await db.destroy();
  }
}

describe('the examples harness', () => {
  it('reads shell and GraphQL blocks with their line and not-run marker, and only those', () => {
    const blocks = docBlocks(
      [
        '# page',
        '```sh',
        'echo one',
        '```',
        '<!-- not run: starts the server -->',
        '',
        '```bash',
        'npm start',
        '```',
        '```json',
        '{}',
        '```',
        '```graphql',
        '{ __typename }',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(
      blocks.map(({ language, line, notRun, text }) => ({ language, line, notRun, text })),
      [
        { language: 'sh', line: 2, notRun: null, text: 'echo one' },
        { language: 'bash', line: 7, notRun: 'starts the server', text: 'npm start' },
        { language: 'graphql', line: 13, notRun: null, text: '{ __typename }' },
      ],
    );
    assert.equal(
      withBaseUrl(
        'curl localhost:3000/a http://127.0.0.1:3000/b BASE=http://localhost:3000 ws://localhost:3000',
        'http://127.0.0.1:9',
      ),
      'curl 127.0.0.1:9/a http://127.0.0.1:9/b BASE=http://127.0.0.1:9 ws://127.0.0.1:9',
    );
  });

  it('fails a block on a curl error (a bracket without -g), a status of 400 or more, an empty answer or list, a v1 answer or a GraphQL error or empty field; passes the rest', async () => {
    const server = createServer(async (request, response) => {
      if (request.url === '/graphql') {
        let body = '';
        for await (const chunk of request) body += String(chunk);
        response.writeHead(200, { 'content-type': 'application/json' });
        const broken = body.includes('broken');
        const data = body.includes('nothing') ? { data: { posts: [] } } : { data: { ok: true } };
        response.end(JSON.stringify(broken ? { errors: [{ message: 'no such field' }] } : data));
        return;
      }
      const status = Number(new URL(request.url!, 'http://x').searchParams.get('status') ?? 200);
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(request.url!.includes('/v1/') ? { deprecation: 'true' } : {}),
      });
      const listBody = request.url!.includes('blanklist') ? '{"data": []}' : '{"data": [{"id": 1}]}';
      const text = request.url!.includes('list') ? listBody : '{"ok": true}';
      response.end(request.url!.includes('/empty') || status === 204 ? '' : text);
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const outcome = async (command: string, language = 'sh', expectEmpty = false) => {
      // A GraphQL block's token is the harness's own variable, set here so no `cli token` runs.
      const blocks: DocBlock[] = [
        { language: 'sh', line: 1, text: '__docs_admin_token=stub', notRun: null },
        { language, line: 2, text: command, notRun: null, expectEmpty },
      ];
      const run = await runPageScript(pageScript(blocks, base), { cwd: ROOT, env: shellEnv({}), timeoutMs: 20_000 });
      if (run.done && run.code === 0) return 'passes';
      const reason = /@@docs-(?:curl|graphql)-failed ([^\n]*)/.exec(run.stderr)?.[1];
      return reason ? `fails: ${reason}` : 'fails';
    };
    try {
      assert.equal(
        await outcome('curl -s "localhost:3000/x?price[lt]=20"'),
        'fails: curl exited 3: curl -s 127.0.0.1:' + port + '/x?price[lt]=20',
      );
      assert.equal(await outcome('curl -sg "localhost:3000/x?price[lt]=20"'), 'passes');
      assert.match(await outcome('curl -s "localhost:3000/x?status=404"'), /^fails: HTTP 404 for GET /);
      assert.match(await outcome('curl -s "localhost:3000/x?status=422" | jq .'), /^fails: HTTP 422 /);
      assert.match(await outcome('T=$(curl -s "localhost:3000/x?status=401")\necho "$T"'), /^fails: HTTP 401 /);
      assert.match(await outcome('curl -s "localhost:3000/empty"'), /^fails: an empty answer \(HTTP 200\)/);
      assert.equal(await outcome('curl -s -X DELETE "localhost:3000/x?status=204"'), 'passes');
      assert.equal(await outcome('curl -s "localhost:3000/x?status=201"\ncurl -s localhost:3000/x'), 'passes');
      assert.match(await outcome('curl -s localhost:3000/v1/x'), /^fails: a deprecated API answered/);
      assert.equal(await outcome('curl -s -i localhost:3000/x | grep -i "^content-type"'), 'passes');
      assert.equal(await outcome('echo "$UNSET_IN_THE_DOCS"'), 'fails');
      assert.equal(await outcome('false | cat'), 'fails');
      assert.equal(await outcome('{ ok }', 'graphql'), 'passes');
      assert.match(await outcome('{ broken }', 'graphql'), /^fails: the answer has errors or no data/);
      // Where the page promises data, an empty list fails; a block marked `expect: empty` may have one.
      assert.equal(await outcome('curl -s localhost:3000/list'), 'passes');
      assert.match(await outcome('curl -s localhost:3000/blanklist'), /^fails: an empty list \(HTTP 200\)/);
      assert.equal(await outcome('curl -s localhost:3000/blanklist', 'sh', true), 'passes');
      assert.match(await outcome('{ nothing }', 'graphql'), /^fails: an empty answer/);
      assert.equal(await outcome('{ nothing }', 'graphql', true), 'passes');
    } finally {
      server.close();
    }
  });
});
