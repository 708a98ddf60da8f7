/**
 * The subscription fan-out benchmark (issue 35): N subscribers on one instance to one post's comments
 * (`commentAdded`, over graphql-ws), R comments a second through REST for S seconds. Prints the latency
 * from each mutation's answer to each receipt (p50, p99), the server's peak RSS, and whether every
 * subscriber received every comment exactly once and in order.
 *
 *   node bench/subscriptions-fanout.ts [--dialect sqlite] [--subscribers 1000] [--rate 10] [--seconds 20]
 *                                      [--selection '{ id text }'] [--profile DIR] [--service DIR]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { serviceEnv, startService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, type Dialect } from './suite/databases.ts';
import { cpuMillis, loadAverage, pinLoadGenerator, sampleRss } from './suite/processes.ts';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    subscribers: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '20' },
    selection: { type: 'string', default: '{ id text }' },
    // A directory: the server writes a V8 CPU profile there when it stops (`node --cpu-prof`).
    profile: { type: 'string' },
    // The checkout whose server is measured (built, with its node_modules): an A/B against another commit.
    service: { type: 'string', default: '.' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);

pinLoadGenerator();
const database = await createBenchDatabase(values.dialect as Dialect);
const server = await startService(values.service, 'fanout', database.url, {
  logLevel: 'warn',
  extra: values.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values.profile}` } : {},
});
const stopRss = sampleRss(server.pid);
try {
  const token = mintToken(database.url, 1, serviceEnv(database.url, 0));
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = await fetch(`${server.url}/api/users/1/posts`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ title: 'Fan-out', content: 'Watched by many' }),
  });
  const postId = ((await post.json()) as { id: number }).id;

  const total = RATE * SECONDS;
  // What the clients record, in arrays made once: a receipt is a comment's number and a time, so the load
  // generator makes no garbage per message (its own collections would show as the server's latency).
  const WARM_UP = -1;
  const answeredAt = new Float64Array(total).fill(NaN);
  const receiptComment = new Int32Array(SUBSCRIBERS * total);
  const receiptAt = new Float64Array(SUBSCRIBERS * total);
  let receipts = 0;
  // Each subscriber's comments in the order received (compared with the feed's order at the end).
  const order = new Int32Array(SUBSCRIBERS * total).fill(-1);
  const counts = new Int32Array(SUBSCRIBERS);
  const strays = new Int32Array(SUBSCRIBERS); // errors, comments not sent, more than `total`
  let warmedUp = 0;
  const clients = [];
  for (let n = 0; n < SUBSCRIBERS; n += 1) {
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
    });
    clients.push(client);
    client.subscribe(
      { query: `subscription { commentAdded(postId: "${postId}") ${values.selection} }` },
      {
        next: (value) => {
          const at = performance.now();
          const comment = (value.data as { commentAdded?: { id: string; text: string } } | undefined)?.commentAdded;
          const number = comment?.text === 'warm-up' ? WARM_UP : Number(comment?.text?.slice('comment '.length));
          if (number === WARM_UP) return void (warmedUp += 1);
          if (!(number >= 0 && number < total) || counts[n]! >= total) return void (strays[n]! += 1);
          order[n * total + counts[n]!] = number;
          counts[n]! += 1;
          receiptComment[receipts] = number;
          receiptAt[receipts] = at;
          receipts += 1;
        },
        error: () => {},
        complete: () => {},
      },
    );
  }
  const comment = (text: string) =>
    fetch(`${server.url}/api/posts/${postId}/comments`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ text }),
    });
  /** The timed comments' numbers in feed order, read from the admin event feed. */
  const feedOrder = async (count: number): Promise<number[]> => {
    const numbers: number[] = [];
    let after = '';
    for (;;) {
      const res = await fetch(`${server.url}/api/events?types=comment.created&limit=1000${after}`, { headers: auth });
      const page = (await res.json()) as { data: { data: { text: string } }[]; nextCursor: string | null };
      for (const { data } of page.data) if (data.text.startsWith('comment ')) numbers.push(Number(data.text.slice(8)));
      if (page.data.length < 1000 || !page.nextCursor || numbers.length >= count) return numbers;
      after = `&after=${encodeURIComponent(page.nextCursor)}`;
    }
  };
  const until = async (done: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  // Every subscriber is live once each has received a warm-up comment; only the timed comments count.
  await (await comment('warm-up')).arrayBuffer();
  await until(() => warmedUp >= SUBSCRIBERS, 60_000);

  const loadBefore = loadAverage();
  const cpuBefore = cpuMillis(server.pid);
  // The clients' own process: its CPU and event-loop delay say how much of a receipt's latency is theirs.
  const clientCpuBefore = process.cpuUsage();
  const clientDelay = monitorEventLoopDelay({ resolution: 10 });
  clientDelay.enable();
  const started = performance.now();
  const posts: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    posts.push(
      comment(`comment ${i}`).then(async (res) => {
        answeredAt[i] = performance.now();
        await res.arrayBuffer();
      }),
    );
  }
  await Promise.all(posts);
  await until(() => counts.every((count) => count >= total), 30_000);
  const loadAfter = loadAverage();
  const cpuPerComment = (cpuMillis(server.pid) - cpuBefore) / total;
  clientDelay.disable();
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const clientCpuPerComment = (clientCpu.user + clientCpu.system) / 1000 / total;

  // The feed's order of the comments (concurrent POSTs may commit out of their sending order, and on
  // PostgreSQL out of their ids' order): every subscriber must have received exactly this sequence.
  const feed = await feedOrder(total);
  let duplicates = 0;
  let exact = 0;
  for (let n = 0; n < SUBSCRIBERS; n += 1) {
    const mine = order.subarray(n * total, n * total + counts[n]!);
    duplicates += mine.length - new Set(mine).size;
    if (
      strays[n] === 0 &&
      mine.length === total &&
      feed.length === total &&
      mine.every((number, i) => number === feed[i])
    )
      exact += 1;
  }
  const latencies: number[] = [];
  // Per comment: its first receipt (the feed read and the first socket write) and its last (the whole fan-out).
  const first = new Float64Array(total).fill(Infinity);
  const last = new Float64Array(total).fill(-Infinity);
  for (let r = 0; r < receipts; r += 1) {
    const number = receiptComment[r]!;
    const at = receiptAt[r]!;
    latencies.push(at - answeredAt[number]!);
    first[number] = Math.min(first[number]!, at);
    last[number] = Math.max(last[number]!, at);
  }
  const firsts: number[] = [];
  const spreads: number[] = [];
  for (let i = 0; i < total; i += 1) {
    if (first[i] === Infinity) continue;
    firsts.push(first[i]! - answeredAt[i]!);
    spreads.push(last[i]! - first[i]!);
  }
  const percentile = (figures: number[], p: number) => {
    const sorted = figures.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    return (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN).toFixed(1);
  };
  console.log(
    `${values.dialect} fan-out: ${SUBSCRIBERS} subscribers, ${RATE} comments/s for ${SECONDS} s, selection ${values.selection}\n` +
      `  deliveries ${receipts} of ${SUBSCRIBERS * total}; subscribers with every comment once, in order: ${exact} of ${SUBSCRIBERS}; duplicates ${duplicates}\n` +
      `  answer-to-receipt (negative: received before the answer) p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${percentile(latencies, 100)} ms\n` +
      `  per comment: first receipt p50 ${percentile(firsts, 50)} ms, p99 ${percentile(firsts, 99)} ms; ` +
      `first to last receipt p50 ${percentile(spreads, 50)} ms, p99 ${percentile(spreads, 99)} ms\n` +
      `  server CPU ${cpuPerComment.toFixed(1)} ms per comment (its ${SUBSCRIBERS} deliveries included); ` +
      `clients' CPU ${clientCpuPerComment.toFixed(1)} ms per comment, their event-loop delay p99 ${(clientDelay.percentile(99) / 1e6).toFixed(0)} ms\n` +
      `  server peak RSS ${(stopRss() / 2 ** 20).toFixed(0)} MB; load average ${loadBefore.join(' ')} -> ${loadAfter.join(' ')}`,
  );
  await Promise.all(clients.map((client) => client.dispose()));
} finally {
  await server.stop();
  await database.drop();
}
