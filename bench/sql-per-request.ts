/**
 * The SQL each workload's request issues: `node bench/sql-per-request.ts [DATABASE_URL]`.
 * Starts the app in this process on a database that already holds the standard data set (default
 * `sqlite:./data/bench/profile.db`; make it with `DATABASE_URL=... npm run seed`), sends one request
 * of each workload and prints the statements it ran.
 */
import { loadConfig } from '../src/config/config.ts';
import { observeQueries } from '../src/core/db/database.ts';
import { startServer } from '../src/server.ts';

const url = process.argv[2] ?? 'sqlite:./data/bench/profile.db';
const config = loadConfig({
  NODE_ENV: 'production',
  PORT: '0',
  DATABASE_URL: url,
  DEMO_DATA: 'false',
  LOG_LEVEL: 'warn',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  ADMIN_PASSWORD: 'bench-admin-password',
  REPORT_WORKER: 'false',
});
const server = await startServer(config);
const { access_token: token } = await server.app.services.tokens.issue({ userId: 1, role: 'user' });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const graphql = (query: string, variables?: object) => ({
  method: 'POST',
  path: '/graphql',
  body: JSON.stringify({ query, variables }),
});

const requests: [string, { method: string; path: string; body?: string }][] = [
  ['W1', { method: 'GET', path: '/api/users/7' }],
  [
    'W2',
    {
      method: 'GET',
      path: '/api/products?category=category-07&min_price=100&max_price=500&sort=-price&limit=20&page=2',
    },
  ],
  ['W3', graphql('{ users(limit: 10) { id name posts { id title comments { id text author { id name } } } } }')],
  ['W4', graphql('query($id: ID!) { user(id: $id) { id name email } }', { id: '7' })],
  [
    'W5',
    {
      method: 'POST',
      path: '/api/users',
      body: JSON.stringify({ name: 'Sql Count', email: `sql-${Date.now()}@example.com` }),
    },
  ],
  ['W6', { method: 'GET', path: '/api/posts' }],
  ['W7', { method: 'GET', path: '/api/products/7' }],
  [
    'W8 REST write',
    { method: 'POST', path: '/api/users/1/posts', body: JSON.stringify({ title: 'Sql count', content: 'Counting.' }) },
  ],
  [
    'W8 GraphQL write',
    graphql('mutation($i: CreatePostInput!) { createPost(input: $i) { id } }', {
      i: { title: 'Sql', content: 'Count.', authorId: '1' },
    }),
  ],
];

try {
  for (const [name, request] of requests) {
    await fetch(server.url + request.path, { method: request.method, headers, body: request.body }); // warm caches (jit, statements)
    const statements: string[] = [];
    const stop = observeQueries(server.db, (sql) => statements.push(sql));
    const started = performance.now();
    const response = await fetch(server.url + request.path, {
      method: request.method,
      headers,
      body: request.body?.replace('sql-', 'sql2-'),
    });
    await response.text();
    const ms = performance.now() - started;
    stop();
    console.log(`\n## ${name}: ${response.status}, ${statements.length} statements, ${ms.toFixed(1)} ms`);
    for (const sql of statements) console.log(`  ${sql.length > 300 ? `${sql.slice(0, 300)}…` : sql}`);
  }
} finally {
  await server.close();
}
