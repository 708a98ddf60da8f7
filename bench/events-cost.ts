/**
 * What events cost a write, and how soon they arrive (issue 34): `node bench/events-cost.ts --base DIR`.
 * DIR is this tree with its events switched off: `git archive HEAD | tar -x -C DIR`, then in DIR `git apply
 * bench/no-events.patch` (services write no event row, the revisions written with each change stay, no
 * webhook workers run; the patch reads BENCH_NO_EVENTS, which A is given), `npm ci` and `npm run build`. Sessions 13-20 used 38fea2f, a tree from before the events
 * work; later work made W5 faster there too, which hid most of W5's event cost on PostgreSQL
 * (the bench journal (git show b3694ab:bench/journal/2026-11.md), session 21).
 * A is DIR; B is this tree with one enabled webhook endpoint (a local receiver in a process of its own that
 * answers 204) and NATS JetStream on (`NATS_URL`, a stream and subject prefix of its own). W5 and W8 are
 * loaded in alternating bursts; the receiver and a NATS subscriber measure, for every event, the time
 * from the event's timestamp (taken in its transaction, just before the commit) to its arrival. With `--worker`,
 * B is an API process (`PROCESS_ROLE=api`, measured) with a `content-service worker` beside it (not measured).
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  adminTokenOf,
  alternate,
  envSettings,
  serviceEnv,
  startService,
  startWorkerService,
} from './suite/alternate.ts';
import { arrivals, summary } from './suite/arrivals.ts';
import { createBenchDatabase, mintToken, seedStandardData, type Dialect } from './suite/databases.ts';
import { pinLoadGenerator, writtenBytes, type ServerProcess } from './suite/processes.ts';
import { startReceiver } from './suite/webhook-receiver.ts';
import { standardContext, WORKLOADS } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    workloads: { type: 'string', default: 'W5,W8' },
    dialect: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    nats: { type: 'string', default: 'nats://127.0.0.1:4222' },
    /** A directory for CPU profiles of A and B (in `A/` and `B/`, written when they stop). */
    profile: { type: 'string' },
    /**
     * What B runs beside its outbox: `webhook,nats` (the target's setting), one of them, or `none` (the
     * events are recorded and nobody consumes them): what each part costs.
     */
    parts: { type: 'string', default: 'webhook,nats' },
    /**
     * B as DECISIONS §16's production layout: an API process (`PROCESS_ROLE=api`, loaded and measured)
     * and a `content-service worker` process beside it on the load generator's core (its CPU not counted).
     */
    worker: { type: 'boolean', default: false },
    /** Settings for B only, `NAME=value` (repeatable): e.g. `--b-env WEBHOOK_ENDPOINT_CONCURRENCY=32`. */
    'b-env': { type: 'string', multiple: true, default: [] },
  },
});
if (!values.base) throw new Error('--base DIR is required');
const dialect = values.dialect as Dialect;
const parts = new Set(values.parts.split(','));
const withWebhook = parts.has('webhook');
const withNats = parts.has('nats');
const bEnv = envSettings(values['b-env'], '--b-env');

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

pinLoadGenerator();
// The receiver answers from a process of its own: in this one its answers waited for the load generator's
// event loop (a receiver that slow held deliveries back at 8 in flight: SQLite W8 p99 1.9 s;
// the bench journal (git show b3694ab:bench/journal/2026-11.md), session 21).
const webhook = await startReceiver();
const receiverUrl = webhook.url;

const tag = `BENCH_${process.pid}_${Date.now()}`;
const nats = await connect({ servers: values.nats });
const broker = arrivals();
const subscription = nats.subscribe(`bench.${tag}.>`, { callback: (_error, message) => broker.add(message.string()) });

const database = await createBenchDatabase(dialect);
let servers: { A: ServerProcess; B: ServerProcess } | undefined;
let worker: ServerProcess | undefined;
/** What B and its worker are given beside the service's defaults: NATS, private receiver URLs, `--b-env`. */
const bSettings: Record<string, string> = {
  ...(withNats ? { NATS_URL: values.nats, NATS_STREAM: tag, NATS_SUBJECT_PREFIX: `bench.${tag}` } : {}),
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  ...bEnv,
};
try {
  seedStandardData(database.url, resolve(values.base));
  const token = mintToken(database.url, 1, serviceEnv(database.url, 0), resolve(values.base));
  servers = {
    A: await startService(resolve(values.base), 'events-a', database.url, {
      extra: {
        // Read by a base with bench/no-events.patch applied: no events recorded, no webhook workers.
        BENCH_NO_EVENTS: 'true',
        ...(values.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(values.profile, 'A')}` } : {}),
      },
    }),
    B: await startService('.', 'events-b', database.url, {
      extra: {
        ...bSettings,
        ...(values.worker ? { PROCESS_ROLE: 'api' } : {}),
        ...(values.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(values.profile, 'B')}` } : {}),
      },
    }),
  };
  if (values.worker) worker = await startWorkerService(database.url, bSettings);
  const adminToken = await adminTokenOf(servers.B.url);
  if (withWebhook) {
    const endpoint = await fetch(`${servers.B.url}/api/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ url: receiverUrl, description: 'bench receiver' }),
    });
    if (endpoint.status !== 201)
      throw new Error(`POST /api/webhooks answered ${endpoint.status}: ${await endpoint.text()}`);
  }

  // The feed, read on from where the last read stopped: how many events B has committed so far.
  let feedCursor = '';
  let feedTotal = 0;
  const feedCount = async () => {
    for (;;) {
      const page = (await (
        await fetch(`${servers!.B.url}/api/events?limit=1000${feedCursor ? `&after=${feedCursor}` : ''}`, {
          headers: { authorization: `Bearer ${adminToken}` },
        })
      ).json()) as { data: unknown[]; nextCursor: string | null };
      feedTotal += page.data.length;
      if (page.nextCursor) feedCursor = page.nextCursor;
      if (page.data.length < 1000) return feedTotal;
    }
  };
  // The receiver counts from its last reset, the feed and the stream from the start: each is read
  // against where it stood at that reset. The stream's own count says what was published (a core NATS
  // subscriber like `broker` may drop a message when it falls behind; its arrivals time the latency).
  const streams = withNats ? (await jetstreamManager(nats)).streams : undefined;
  // The service makes the stream at its first publication.
  const streamCount = async () =>
    streams ? ((await streams.info(tag).catch(() => undefined))?.state.messages ?? 0) : 0;
  let atReset = { feed: 0, stream: 0 };
  const resetCounts = async () => {
    await webhook.reset();
    broker.reset();
    atReset = { feed: await feedCount(), stream: await streamCount() };
  };
  /** Until every event B committed has reached the receiver and the stream (at most 60 s). */
  const settleB = async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const expected = (await feedCount()) - atReset.feed;
      const delivered = !withWebhook || (await webhook.count()) >= expected;
      const published = !withNats || (await streamCount()) - atReset.stream >= expected;
      if ((delivered && published) || Date.now() > deadline) return;
      await new Promise((done) => setTimeout(done, 25));
    }
  };

  const settings = Object.keys(bEnv).length > 0 ? `, ${values['b-env'].join(' ')}` : '';
  const layout = values.worker ? ', an API process with a worker process beside it' : '';
  console.log(`${dialect}: start (B: ${values.parts}${settings}${layout}), load average ${loadAverage()}`);
  for (const workload of WORKLOADS.filter((w) => values.workloads.split(',').includes(w.id))) {
    const prepare = (server: ServerProcess) => workload.prepare(standardContext(server.url, token));
    const prepared = { A: await prepare(servers.A), B: await prepare(servers.B) };
    await settleB();
    await resetCounts();
    const workerWritten = worker ? writtenBytes(worker.pid) : 0;
    const { A, B } = await alternate(
      { A: { server: servers.A, ...prepared.A }, B: { server: servers.B, ...prepared.B } },
      {
        rounds: Number(values.rounds),
        seconds: Number(values.seconds),
        connections: Number(values.connections),
        // B's deliveries and publications are done before A's next burst, and counted to B.
        settle: (side) => (side === 'B' ? settleB() : Promise.resolve()),
      },
    );
    console.log(
      `${dialect} ${workload.id}: without events ${Math.round(A.rps)} req/s ${Math.round(A.cpuUs)} µs/req | with events (${values.parts}) ${Math.round(B.rps)} req/s ${Math.round(B.cpuUs)} µs/req (CPU with its deliveries), ${Math.round(B.sustainedRps)} req/s counting the wait for its deliveries | ratio ${(B.rps / A.rps).toFixed(2)} (sustained ${(B.sustainedRps / A.rps).toFixed(2)}), CPU ${(B.cpuUs / A.cpuUs).toFixed(2)}`,
    );
    // Write volume: on SQLite the WAL pages each answer costs. The worker's is counted over B's measured answers
    // but includes its warm-up's deliveries too, so it errs high (by the warm-up's share of B's load).
    const perAnswer = worker ? (writtenBytes(worker.pid) - workerWritten) / 1024 / B.answered : 0;
    console.log(
      `${dialect} ${workload.id}: written per answer ${A.writtenKb.toFixed(1)} KB without events, ${B.writtenKb.toFixed(1)} KB with${worker ? ` (+ ${perAnswer.toFixed(1)} KB by the worker)` : ''}`,
    );
    if (withWebhook) console.log(`${dialect} ${workload.id} ${await webhook.summary('webhook')}`);
    if (withNats) console.log(`${dialect} ${workload.id} ${summary('NATS', broker)}`);
  }
  console.log(`${dialect}: the feed holds ${await feedCount()} events`);
  console.log(`${dialect}: end, load average ${loadAverage()}`);
} finally {
  await servers?.A.stop();
  await servers?.B.stop();
  await worker?.stop();
  await database.drop();
  subscription.unsubscribe();
  await (await jetstreamManager(nats)).streams.delete(tag).catch(() => false);
  await nats.close();
  webhook.close();
}
