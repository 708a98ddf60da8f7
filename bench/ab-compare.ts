/**
 * Two versions of the service on the same data, loaded in alternating short bursts (A B B A ...), so
 * a busy machine slows both alike: `node bench/ab-compare.ts --base DIR [--workloads W1,W3] [--dialect sqlite]`.
 * DIR is another checkout (e.g. `git archive <commit> | tar -x -C DIR` with node_modules linked);
 * B is this working tree (or `--tree DIR`, e.g. a commit of a bisection). Prints successful answers per second and server CPU per answer of each, and B/A.
 * `--rate N` offers a fixed N requests per second instead of as many as answered: the server CPU per answer
 * of each below saturation, and with `--profile` the same number of answers in both profiles (their
 * difference per function is the cost of B's change, per answer).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { alternate, envSettings, serviceEnv, startService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, seedStandardData, type Dialect } from './suite/databases.ts';
import { pinLoadGenerator, type ServerProcess } from './suite/processes.ts';
import { WORKLOADS, type WorkloadContext } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    tree: { type: 'string', default: '.' },
    workloads: { type: 'string', default: 'W1,W3,W4' },
    dialect: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    /** Offered requests per second (autocannon's overallRate): compare CPU per answer below saturation. */
    rate: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    /** A directory for V8 CPU profiles of both (DIR/a, DIR/b), written when they stop: bench/profile-summary.ts reads them. */
    profile: { type: 'string' },
    /** Settings for B only, `NAME=value` (repeatable): e.g. `--b-env MALLOC_ARENA_MAX=2` with `--tree` the base. */
    'b-env': { type: 'string', multiple: true, default: [] },
    /** Settings for A only, as `--b-env`: two settings of one feature against each other (both traced, say). */
    'a-env': { type: 'string', multiple: true, default: [] },
  },
});
if (!values.base) throw new Error('--base DIR is required');
const dialect = values.dialect as Dialect;
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const RATE = values.rate === undefined ? undefined : Number(values.rate);
if (RATE !== undefined && !(Number.isFinite(RATE) && RATE > 0))
  throw new Error('--rate takes requests per second, above 0');

pinLoadGenerator();
const database = await createBenchDatabase(dialect);
try {
  // Seeded (and the token minted) by the base, which starts first: a migration only this tree has (a new table) is applied
  // when B starts; the other way round the base would refuse a database with a migration it lacks.
  seedStandardData(database.url, resolve(values.base));
  const token = mintToken(database.url, 1, serviceEnv(database.url, 0), resolve(values.base));
  const logLevel = values['log-level'];
  const profiled = (side: string) =>
    values.profile
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(values.profile, side)}` }
      : process.env.AB_NODE_OPTIONS
        ? { NODE_OPTIONS: process.env.AB_NODE_OPTIONS }
        : undefined;
  const servers = {
    A: await startService(resolve(values.base), 'a', database.url, {
      logLevel,
      extra: { ...profiled('a'), ...envSettings(values['a-env'], '--a-env') },
    }),
    B: await startService(resolve(values.tree), 'b', database.url, {
      logLevel,
      extra: { ...profiled('b'), ...envSettings(values['b-env'], '--b-env') },
    }),
  };
  try {
    for (const workload of WORKLOADS.filter((w) => values.workloads.split(',').includes(w.id))) {
      const prepared = { A: await prepare(servers.A), B: await prepare(servers.B) };
      const { A, B } = await alternate(
        { A: { server: servers.A, ...prepared.A }, B: { server: servers.B, ...prepared.B } },
        {
          rounds: ROUNDS,
          seconds: SECONDS,
          connections: CONNECTIONS,
          rate: RATE,
        },
      );
      console.log(
        `${dialect} ${workload.id}: A ${Math.round(A.rps)} req/s ${Math.round(A.cpuUs)} µs/req | B ${Math.round(B.rps)} req/s ${Math.round(B.cpuUs)} µs/req | B/A req/s ${(B.rps / A.rps).toFixed(2)}, CPU ${(B.cpuUs / A.cpuUs).toFixed(2)}`,
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
