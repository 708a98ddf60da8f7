/**
 * What a big webhook replay costs the requests beside it (issue 54): `node bench/replay-cost.ts [--dialect
 * sqlite|postgres] [--events 100000] [--worker]`. W5 writes `--events` users (one `user.created` each), then
 * one webhook endpoint is made and W1 is loaded twice for `--seconds`: before, and right after a replay of
 * every one of those events to the endpoint (a local receiver answering 204). W1's p99 during the replay
 * against before is the figure (target: at most 1.5× with a worker process). Without `--worker` the one
 * process does everything (`npm start`); with it, the loaded process is `PROCESS_ROLE=api` and a
 * `content-service worker` beside it (on the load generator's core) sends the deliveries.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { adminTokenOf, envSettings, serviceEnv, startService, startWorkerService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, seedStandardData, type Dialect } from './suite/databases.ts';
import { runLoad } from './suite/load.ts';
import { pinLoadGenerator, type ServerProcess } from './suite/processes.ts';
import { startReceiver } from './suite/webhook-receiver.ts';
import { standardContext, WORKLOADS } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    worker: { type: 'boolean', default: false },
    /** Settings for the worker process only, `NAME=value` (repeatable): e.g. `--worker-env WEBHOOK_CONCURRENCY=2`. */
    'worker-env': { type: 'string', multiple: true, default: [] },
  },
});
const dialect = values.dialect as Dialect;
const EVENTS = Number(values.events);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const workload = (id: string) => WORKLOADS.find((w) => w.id === id)!;

pinLoadGenerator();
const receiver = await startReceiver();
const database = await createBenchDatabase(dialect);
let api: ServerProcess | undefined;
let worker: ServerProcess | undefined;
try {
  seedStandardData(database.url, '.');
  const token = mintToken(database.url, 1, serviceEnv(database.url, 0));
  const settings = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  api = await startService('.', 'replay-api', database.url, {
    extra: { ...settings, ...(values.worker ? { PROCESS_ROLE: 'api' } : {}) },
  });
  if (values.worker)
    worker = await startWorkerService(database.url, {
      ...settings,
      ...envSettings(values['worker-env'], '--worker-env'),
    });
  const context = standardContext(api.url, token);
  const layout = values.worker ? 'an API process and a worker' : 'one process';
  console.log(`${dialect}, ${layout}: start, load average ${load()}`);

  // The events to replay: users written by W5, one event each.
  const since = new Date().toISOString();
  const w5 = await workload('W5').prepare(context);
  let written = 0;
  while (written < EVENTS) {
    const figures = await runLoad({ url: api.url, connections: CONNECTIONS, seconds: 5, requests: w5.requests });
    written += Math.round(figures.rps * 5);
  }
  console.log(`${dialect}: ${written} events written by W5`);

  const admin = { 'content-type': 'application/json', authorization: `Bearer ${await adminTokenOf(api.url)}` };
  const made = await fetch(`${api.url}/api/webhooks`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ url: receiver.url, events: ['user.*'] }),
  });
  if (made.status !== 201) throw new Error(`POST /api/webhooks: ${made.status} ${await made.text()}`);
  const endpoint = (await made.json()) as { id: number };

  const w1 = await workload('W1').prepare(context);
  const w1Load = () => runLoad({ url: api!.url, connections: CONNECTIONS, seconds: SECONDS, requests: w1.requests });
  await runLoad({ url: api.url, connections: CONNECTIONS, seconds: 2, requests: w1.requests });
  const before = await w1Load();
  await receiver.reset();
  const asked = performance.now();
  const replay = await fetch(`${api.url}/api/webhooks/${endpoint.id}/replay`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ since }),
  });
  const replayed = (await replay.json()) as { queued?: number };
  const answeredMs = performance.now() - asked;
  const during = await w1Load();
  const arrived = await receiver.count();
  console.log(
    `${dialect} W1 before the replay: ${Math.round(before.rps)} req/s, p50 ${before.p50} ms, p99 ${before.p99} ms`,
  );
  console.log(
    `${dialect} replay: ${replay.status}, ${replayed.queued} queued, answered in ${Math.round(answeredMs)} ms; ${arrived} delivered during W1's ${SECONDS} s`,
  );
  console.log(
    `${dialect} W1 during the replay: ${Math.round(during.rps)} req/s, p50 ${during.p50} ms, p99 ${during.p99} ms | p99 ratio ${(during.p99 / Math.max(before.p99, 1)).toFixed(2)}`,
  );
  console.log(`${dialect}: end, load average ${load()}`);
} finally {
  await api?.stop();
  await worker?.stop();
  await database.drop();
  receiver.close();
}
