import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import pg from 'pg';
import { freePort, freshDatabase } from '../scripts/scratch.ts';

/**
 * How soon a starting server answers `/healthz` while its migrations cannot finish (DECISIONS §1, ops):
 * `npm start`'s own command on a fresh PostgreSQL database whose migration lock another session holds
 * (as during a long index build by another instance). Five starts; the median, and the load beside it.
 * Usage: node bench/healthz-while-migrating.ts (PostgreSQL at TEST_PG_URL or 127.0.0.1:5432)
 */
/** Kysely's migration lock on PostgreSQL (its postgres-adapter). */
const KYSELY_MIGRATION_LOCK = '3853314791062309107';
const NODE_FLAGS = ['--max-semi-space-size=8', '--no-allocation-site-pretenuring', '--max-old-space-size=1024'];

const times: number[] = [];
for (let round = 0; round < 5; round += 1) {
  const database = await freshDatabase('postgres', 'cs_healthz_probe');
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  await holder.query(`select pg_advisory_lock(${KYSELY_MIGRATION_LOCK})`);
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, 'bin/content-service.js', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      JWT_SECRET: 'x'.repeat(40),
    },
    stdio: 'ignore',
  });
  let alive = Number.NaN;
  let readiness = '';
  while (performance.now() - started < 30_000) {
    const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    if (answer?.status === 200) {
      alive = performance.now() - started;
      readiness = await (await fetch(`http://127.0.0.1:${port}/readyz`)).text();
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  times.push(alive);
  console.log(`start ${round + 1}: /healthz 200 after ${Math.round(alive)} ms; /readyz ${readiness}`);
  child.kill('SIGKILL');
  await holder.end();
  await database.drop();
}
times.sort((a, b) => a - b);
console.log(
  `median ${Math.round(times[2]!)} ms (min ${Math.round(times[0]!)}, max ${Math.round(times[4]!)}); load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}`,
);
