/**
 * The subscription fan-out benchmark (issue 35): N subscribers on one instance to one post's comments
 * (`commentAdded`, over graphql-ws), R comments a second through REST for S seconds. Prints the latency
 * from each mutation's answer to each receipt (p50, p99), the server's peak RSS, and whether every
 * subscriber received every comment exactly once and in order.
 *
 *   node bench/subscriptions-fanout.ts [--dialect sqlite] [--subscribers 1000] [--rate 10] [--seconds 20]
 *                                      [--selection '{ id text }']
 */
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, type Dialect } from './suite/databases.ts';
import { loadAverage, pinLoadGenerator, sampleRss } from './suite/processes.ts';
import { serviceEnv } from './suite/alternate.ts';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    subscribers: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '20' },
    selection: { type: 'string', default: '{ id text }' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);

pinLoadGenerator();
const database = await createBenchDatabase(values.dialect as Dialect);
const server = await startService('.', 'fanout', database.url, { logLevel: 'warn' });
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

  const answeredAt = new Map<string, number>();
  const receipts: { text: string; at: number }[] = [];
  const received: string[][] = Array.from({ length: SUBSCRIBERS }, () => []);
  const ids: number[][] = Array.from({ length: SUBSCRIBERS }, () => []);
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
          const comment = (value.data as { commentAdded?: { id: string; text: string } } | undefined)?.commentAdded;
          const text = comment?.text ?? '(error)';
          receipts.push({ text, at: performance.now() });
          received[n]!.push(text);
          ids[n]!.push(Number(comment?.id));
        },
        error: () => {},
        complete: () => {},
      },
    );
  }
  // Every subscriber is live once each has received a warm-up comment; only the timed comments count.
  const live = async (text: string) => {
    await fetch(`${server.url}/api/posts/${postId}/comments`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ text }),
    });
    const deadline = Date.now() + 60_000;
    while (received.some((got) => !got.includes(text)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await live('warm-up');
  for (const got of received) got.length = 0;
  for (const got of ids) got.length = 0;
  receipts.length = 0;
  const loadBefore = loadAverage();
  const sent: string[] = [];
  const total = RATE * SECONDS;
  const started = performance.now();
  const posts: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const text = `comment ${i}`;
    sent.push(text);
    posts.push(
      fetch(`${server.url}/api/posts/${postId}/comments`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ text }),
      }).then(async (res) => {
        answeredAt.set(text, performance.now());
        await res.arrayBuffer();
      }),
    );
  }
  await Promise.all(posts);
  const drained = Date.now() + 30_000;
  while (received.some((got) => got.length < sent.length) && Date.now() < drained)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const loadAfter = loadAverage();
  const duplicates = received.reduce((sum, got) => sum + got.length - new Set(got).size, 0);
  // Comments are posted without waiting for each other, so their commit (and feed) order is the order of
  // their ids (SQLite has one writer; on PostgreSQL ids and feed order agree for one post's comments).
  const all = new Set(sent);
  const exact = received.filter(
    (got, n) =>
      got.length === sent.length &&
      new Set(got).size === all.size &&
      got.every((text) => all.has(text)) &&
      ids[n]!.every((id, i) => i === 0 || id > ids[n]![i - 1]!),
  ).length;
  const latencies = receipts.filter((r) => answeredAt.has(r.text)).map((r) => r.at - answeredAt.get(r.text)!);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  console.log(
    `${values.dialect} fan-out: ${SUBSCRIBERS} subscribers, ${RATE} comments/s for ${SECONDS} s, selection ${values.selection}\n` +
      `  deliveries ${latencies.length} of ${SUBSCRIBERS * total}; subscribers with every comment once, in order: ${exact} of ${SUBSCRIBERS}; duplicates ${duplicates}\n` +
      `  answer-to-receipt (negative: received before the answer) p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${pct(100).toFixed(1)} ms\n` +
      `  server peak RSS ${(stopRss() / 2 ** 20).toFixed(0)} MB; load average ${loadBefore.join(' ')} -> ${loadAfter.join(' ')}`,
  );
  await Promise.all(clients.map((client) => client.dispose()));
} finally {
  await server.stop();
  await database.drop();
}
