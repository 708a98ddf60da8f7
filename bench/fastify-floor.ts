/**
 * `node bench/fastify-floor.ts [--seconds 10 --rounds 3]`: the raw node:http ceiling and a bare
 * Fastify app (`suite/fastify-floor-server.ts`) loaded alike (32 connections, server and autocannon
 * on separate cores), in alternating rounds. Prints req/s and server CPU per answer of each: the
 * share of the ceiling any Fastify service can reach before doing any work of its own.
 */
import { parseArgs } from 'node:util';
import { runLoad } from './suite/load.ts';
import { cpuMillis, freePort, pinLoadGenerator, startProcess } from './suite/processes.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } },
});
pinLoadGenerator();
const servers = {
  ceiling: await start('bench/suite/ceiling-server.ts', '/'),
  fastify: await start('bench/suite/fastify-floor-server.ts', '/readyz'),
};
try {
  const totals = { ceiling: { ok: 0, seconds: 0, cpu: 0 }, fastify: { ok: 0, seconds: 0, cpu: 0 } };
  for (const server of Object.values(servers))
    await runLoad({ url: server.url, connections: 32, seconds: 2, requests: [{ path: '/api/users/1' }] });
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const name of ['ceiling', 'fastify'] as const) {
      const server = servers[name];
      const cpuBefore = cpuMillis(server.pid);
      const figures = await runLoad({
        url: server.url,
        connections: 32,
        seconds: Number(values.seconds),
        requests: [{ path: '/api/users/1' }],
      });
      totals[name].ok += figures.answered;
      totals[name].seconds += Number(values.seconds);
      totals[name].cpu += cpuMillis(server.pid) - cpuBefore;
    }
  }
  for (const [name, total] of Object.entries(totals)) {
    console.log(
      `${name}: ${Math.round(total.ok / total.seconds)} req/s, ${Math.round((total.cpu * 1000) / total.ok)} µs CPU per answer`,
    );
  }
  console.log(`fastify / ceiling: ${(totals.fastify.ok / totals.ceiling.ok).toFixed(3)} of the requests per second`);
} finally {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
}

async function start(script: string, readyPath: string) {
  const port = await freePort();
  return startProcess([script], { PORT: String(port) }, port, `data/bench/${script.split('/').pop()}.log`, readyPath);
}
