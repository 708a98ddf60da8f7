/**
 * `node bench/run-queue-wait.ts [--seconds 4 --rounds 3 --workload W1]`: the reference and the bare stack
 * (bench/reference/, bench/bare/) on a freshly seeded PostgreSQL database, loaded in turn as `npm run bench`
 * loads them, with what the scheduler did per answer (from /proc/<pid>/task/<tid>/schedstat and status,
 * every thread): CPU time, time runnable but waiting for a core, and context switches. On a host whose
 * server core is shared, requests/s follow the share of the core a server gets, not only what it spends
 * (bench/journal/2026-11.md, session 12).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BENCH_DIR, createBenchDatabase, mintToken, seedStandardData } from './suite/databases.ts';
import { REFERENCE_WORKLOADS, startHandWritten, type HandWritten } from './suite/hand-written.ts';
import { runLoad } from './suite/load.ts';
import { freePort, pinLoadGenerator, type ServerProcess } from './suite/processes.ts';
import { WORKLOADS } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    workload: { type: 'string', default: 'W1' },
  },
});
const workload = WORKLOADS.find((w) => w.id === values.workload && REFERENCE_WORKLOADS.includes(w.id));
if (!workload) throw new Error(`--workload is one of ${REFERENCE_WORKLOADS.join(', ')}`);

/** Summed over the process's threads: CPU ns, runnable-but-waiting ns, voluntary and involuntary switches. */
function schedOf(pid: number): number[] {
  const sums = [0, 0, 0, 0];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    const switches = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    [cpu!, wait!, switches('voluntary_ctxt_switches'), switches('nonvoluntary_ctxt_switches')].forEach(
      (n, i) => (sums[i]! += n),
    );
  }
  return sums;
}

pinLoadGenerator();
const database = await createBenchDatabase('postgres');
const servers: [HandWritten, ServerProcess][] = [];
try {
  seedStandardData(database.url);
  const env = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DEMO_DATA: 'false',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    JWT_TTL_SECONDS: '86400',
    LOG_LEVEL: 'info',
  };
  const context = { token: mintToken(database.url, 1, env), tokenUserId: 1, users: 1000, products: 10000 };
  for (const kind of ['reference', 'bare'] as const) {
    const port = await freePort();
    const log = `${BENCH_DIR}/run-queue-${kind}.log`;
    servers.push([kind, await startHandWritten(kind, database.url, { ...env, PORT: String(port) }, port, [], log)]);
  }
  const loads = await Promise.all(
    servers.map(async ([, server]) => ({
      server,
      ...(await workload.prepare({ ...context, baseUrl: server.url, category: 'category-07' })),
    })),
  );
  const load = ({ server, requests }: (typeof loads)[number], seconds: number) =>
    runLoad({ url: server.url, connections: 32, seconds, requests });
  for (const side of loads) await load(side, 2);
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const [k, side] of loads.entries()) {
      const before = schedOf(side.server.pid);
      const figures = await load(side, Number(values.seconds));
      const [cpu, wait, voluntary, involuntary] = schedOf(side.server.pid).map(
        (n, i) => (n - before[i]!) / figures.answered,
      );
      console.log(
        `${servers[k]![0]} ${workload.id}: ${Math.round(figures.rps)} req/s, p50 ${figures.p50} ms; per answer: CPU ${Math.round(cpu! / 1000)} µs, ` +
          `waiting for a core ${Math.round(wait! / 1000)} µs, switches ${voluntary!.toFixed(2)} voluntary, ${involuntary!.toFixed(2)} involuntary`,
      );
    }
  }
} finally {
  for (const [, server] of servers) await server.stop();
  await database.drop();
}
