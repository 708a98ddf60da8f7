/**
 * Two versions of the service on the same data, loaded in alternating short bursts (A B B A ...), so
 * a busy machine slows both alike: `node bench/ab-compare.ts --base DIR [--workloads W1,W3] [--dialect sqlite]`.
 * DIR is another checkout (e.g. `git archive <commit> | tar -x -C DIR` with node_modules linked);
 * B is this working tree. Prints successful answers per second and server CPU per answer of each, and B/A.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, createBenchDatabase, mintToken, seedStandardData, type Dialect } from './suite/databases.ts';
import { runLoad } from './suite/load.ts';
import { cpuMillis, freePort, pinLoadGenerator, startProcess, type ServerProcess } from './suite/processes.ts';
import { serverArgs } from './suite/server-command.ts';
import { WORKLOADS, type WorkloadContext } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    workloads: { type: 'string', default: 'W1,W3,W4' },
    dialect: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'log-level': { type: 'string', default: 'info' },
  },
});
if (!values.base) throw new Error('--base DIR is required');
const dialect = values.dialect as Dialect;
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);

const env = (url: string, port: number) => ({
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: String(port),
  DATABASE_URL: url,
  LOG_LEVEL: values['log-level'],
  DEMO_DATA: 'false',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  JWT_TTL_SECONDS: '86400',
  ADMIN_PASSWORD: 'bench-admin-password',
  RATE_LIMIT_MAX: '1000000000',
  REPORT_WORKER: 'false',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
});

async function start(dir: string, name: string, url: string): Promise<ServerProcess> {
  const port = await freePort();
  mkdirSync(BENCH_DIR, { recursive: true }); // a PostgreSQL-only run on a fresh clone has not made it
  return startProcess(serverArgs(dir), env(url, port), port, `${BENCH_DIR}/ab-${name}.log`, '/readyz', dir);
}

pinLoadGenerator();
const database = await createBenchDatabase(dialect);
try {
  // Seeded (and the token minted) by the base, which starts first: a migration only this tree has (a new table) is applied
  // when B starts; the other way round the base would refuse a database with a migration it lacks.
  seedStandardData(database.url, resolve(values.base));
  const token = mintToken(database.url, 1, env(database.url, 0), resolve(values.base));
  const servers = { A: await start(resolve(values.base), 'a', database.url), B: await start('.', 'b', database.url) };
  try {
    for (const workload of WORKLOADS.filter((w) => values.workloads.split(',').includes(w.id))) {
      const totals = { A: { ok: 0, seconds: 0, cpu: 0, answered: 0 }, B: { ok: 0, seconds: 0, cpu: 0, answered: 0 } };
      const prepared = { A: await prepare(servers.A), B: await prepare(servers.B) };
      for (const side of ['A', 'B'] as const)
        await runLoad({ url: servers[side].url, connections: CONNECTIONS, seconds: 2, ...prepared[side] });
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const side of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
          const cpu = cpuMillis(servers[side].pid);
          const figures = await runLoad({
            url: servers[side].url,
            connections: CONNECTIONS,
            seconds: SECONDS,
            ...prepared[side],
          });
          totals[side].cpu += cpuMillis(servers[side].pid) - cpu;
          totals[side].ok += figures.rps * SECONDS;
          totals[side].seconds += SECONDS;
          totals[side].answered += figures.answered;
        }
      }
      const rps = (side: 'A' | 'B') => totals[side].ok / totals[side].seconds;
      const cpuUs = (side: 'A' | 'B') => (totals[side].cpu * 1000) / totals[side].answered;
      console.log(
        `${dialect} ${workload.id}: A ${Math.round(rps('A'))} req/s ${Math.round(cpuUs('A'))} µs/req | B ${Math.round(rps('B'))} req/s ${Math.round(cpuUs('B'))} µs/req | B/A req/s ${(rps('B') / rps('A')).toFixed(2)}, CPU ${(cpuUs('B') / cpuUs('A')).toFixed(2)}`,
      );

      async function prepare(server: ServerProcess) {
        const context: WorkloadContext = {
          baseUrl: server.url,
          token,
          tokenUserId: 1,
          users: 1000,
          products: 10000,
          category: 'category-07',
        };
        return workload!.prepare(context);
      }
    }
  } finally {
    await servers.A.stop();
    await servers.B.stop();
  }
} finally {
  await database.drop();
}
