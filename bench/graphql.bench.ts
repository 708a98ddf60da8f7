/**
 * Throughput of the GraphQL endpoint on the real stack (SQLite in a temp dir, HTTP on loopback):
 * `npm run bench:graphql [-- seconds]`. Figures are recorded in docs/GRAPHQL.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config/config.ts';
import { startServer } from '../src/server.ts';

const seconds = Number(process.argv[2] ?? 10);
const dir = await mkdtemp(`${tmpdir()}/graphql-bench-`);
const config = loadConfig({
  NODE_ENV: 'production',
  PORT: '0',
  DATABASE_URL: `sqlite:${dir}/bench.db`,
  DEMO_DATA: 'false',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  ADMIN_PASSWORD: 'bench-password',
  RATE_LIMIT_MAX: '100000000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  REPORT_WORKER: 'false',
});
const server = await startServer(config);
const { access_token: token } = await server.app.services.tokens.issue({ userId: 1, role: 'admin' });
for (let i = 0; i < 10; i += 1) {
  const user = await server.app.services.users.createUser(null, { name: `Bench ${i}`, email: `bench${i}@example.com` });
  await server.app.services.posts.createPost(
    { userId: user.id, role: 'user' },
    { title: `Post ${i}`, content: 'Body', authorId: user.id },
  );
}

const cases: [string, string][] = [
  ['{ __typename }', '{ __typename }'],
  ['users(limit: 10) scalars', '{ users(limit: 10) { id name email } }'],
  ['users → posts → author', '{ users(limit: 10) { name posts { title author { name } } } }'],
];
console.log(`GraphQL endpoint, ${seconds}s per case, 50 connections, SQLite`);
for (const [name, query] of cases) {
  const result = await autocannon({
    url: `${server.url}/graphql`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  const failed = result.non2xx + result.errors;
  console.log(
    `${name.padEnd(28)} ${String(Math.round(result.requests.average)).padStart(7)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  failed ${failed}`,
  );
}
await server.close();
await rm(dir, { recursive: true, force: true });
