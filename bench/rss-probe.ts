/**
 * Where the server's resident memory sits: `node bench/rss-probe.ts [--dialect sqlite] [--workloads W1,W3]
 * [--seconds 10] [--tree DIR] [--env K=V ...]`. Starts the service as `npm start` does on a freshly seeded database, and
 * prints VmRSS (split into anonymous memory and file pages: the node binary's own code is ~50 MB of the latter),
 * VmHWM and /proc/<pid>/smaps grouped by mapping (V8 heap spaces are anonymous, so they show as [anon]) at idle
 * and after each workload's load.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { envSettings, serviceEnv, startService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, seedStandardData, type Dialect } from './suite/databases.ts';
import { runLoad } from './suite/load.ts';
import { pinLoadGenerator, type ServerProcess } from './suite/processes.ts';
import { standardContext, WORKLOADS } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: '.' },
    workloads: { type: 'string', default: 'W1,W2,W3,W4,W5,W8' },
    dialect: { type: 'string', default: 'sqlite' },
    seconds: { type: 'string', default: '10' },
    /** Extra environment of the server, `K=V` (repeatable): NODE_OPTIONS, MALLOC_ARENA_MAX, ... */
    env: { type: 'string', multiple: true, default: [] },
  },
});

function status(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(field + ':'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

/** Rss (MB) per mapping name: files by base name, anonymous regions as [anon], plus the largest anonymous ones. */
function smaps(pid: number): string {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const byName = new Map<string, number>();
  const anon: number[] = [];
  let name = '';
  for (const line of text.split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      name = header[1] ? header[1].split('/').pop()! : '[anon]';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const kb = Number(rss[1]);
      byName.set(name, (byName.get(name) ?? 0) + kb);
      if (name === '[anon]') anon.push(kb);
    }
  }
  const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 8);
  anon.sort((a, b) => b - a);
  return (
    top.map(([n, kb]) => `${n} ${(kb / 1024).toFixed(1)}`).join(', ') +
    ` | anon regions: ${anon.length}, largest ${anon
      .slice(0, 6)
      .map((kb) => (kb / 1024).toFixed(1))
      .join(' ')} MB`
  );
}

/** V8's heap by space (MB used / committed), from the server's own `/metrics` (prom-client's default families). */
async function heapSpaces(metricsUrl: string): Promise<string> {
  const response = await fetch(metricsUrl);
  if (!response.ok) return `heap: /metrics ${response.status}`;
  const text = await response.text();
  const spaces = new Map<string, { used: number; size: number }>();
  for (const [, kind, space, value] of text.matchAll(
    /^nodejs_heap_space_size_(used|total)_bytes\{space="(\w+)"\} (\S+)$/gm,
  )) {
    const entry = spaces.get(space!) ?? { used: 0, size: 0 };
    entry[kind === 'used' ? 'used' : 'size'] = Number(value) / 2 ** 20;
    spaces.set(space!, entry);
  }
  return `heap used/committed MB: ${[...spaces]
    .filter(([, e]) => e.size >= 0.5)
    .map(([name, e]) => `${name} ${e.used.toFixed(1)}/${e.size.toFixed(1)}`)
    .join(', ')}`;
}

/** `/metrics` on a listener of its own (METRICS_PORT), which asks for no token. */
const METRICS_PORT = '19464';

const report = async (server: ServerProcess, when: string) =>
  console.log(
    `${when}: VmRSS ${status(server.pid, 'VmRSS')} MB (anonymous ${status(server.pid, 'RssAnon')}, files ${status(server.pid, 'RssFile')}), VmHWM ${status(server.pid, 'VmHWM')} MB; ${smaps(server.pid)}\n  ${await heapSpaces(`http://127.0.0.1:${METRICS_PORT}/metrics`)}`,
  );

pinLoadGenerator();
const dialect = values.dialect as Dialect;
const database = await createBenchDatabase(dialect);
let server: ServerProcess | undefined;
try {
  const tree = resolve(values.tree);
  seedStandardData(database.url, tree);
  const token = mintToken(database.url, 1, serviceEnv(database.url, 0), tree);
  const extra = envSettings(values.env, '--env');
  server = await startService(tree, 'rss', database.url, { extra: { METRICS_PORT, ...extra } });
  await new Promise((r) => setTimeout(r, 2000));
  await report(server, 'idle');
  const context = standardContext(server.url, token);
  for (const workload of WORKLOADS.filter((w) => values.workloads.split(',').includes(w.id))) {
    const prepared = await workload.prepare(context);
    await runLoad({ url: server.url, connections: 32, seconds: Number(values.seconds), ...prepared });
    await report(server, workload.id);
  }
} finally {
  await server?.stop();
  await database.drop();
}
