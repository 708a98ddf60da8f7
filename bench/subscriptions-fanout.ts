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
  const latencies: number[] = [];
  const received: string[][] = Array.from({ length: SUBSCRIBERS }, () => []);
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
          const text = (value.data as { commentAdded: { text: string } } | undefined)?.commentAdded.text ?? '(error)';
          const at = answeredAt.get(text);
          if (at !== undefined) latencies.push(performance.now() - at);
          received[n]!.push(text);
        },
        error: () => {},
        complete: () => {},
      },
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 3000));
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
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const loadAfter = loadAverage();
  const exact = received.filter((got) => got.length === sent.length && got.every((text, i) => text === sent[i])).length;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  console.log(
    `${values.dialect} fan-out: ${SUBSCRIBERS} subscribers, ${RATE} comments/s for ${SECONDS} s, selection ${values.selection}\n` +
      `  deliveries ${latencies.length} of ${SUBSCRIBERS * total}; subscribers with every comment once, in order: ${exact} of ${SUBSCRIBERS}\n` +
      `  answer-to-receipt p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${pct(100).toFixed(1)} ms\n` +
      `  server peak RSS ${(stopRss() / 2 ** 20).toFixed(0)} MB; load average ${loadBefore.join(' ')} -> ${loadAfter.join(' ')}`,
  );
  await Promise.all(clients.map((client) => client.dispose()));
} finally {
  await server.stop();
  await database.drop();
}
