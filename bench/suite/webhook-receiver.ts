/**
 * A webhook receiver that answers 204 to every delivery, in a process of its own (forked by
 * `startReceiver`): its answers do not wait for the load generator's event loop, as a healthy receiver's
 * would not. It counts arrivals (`arrivals`) and answers its parent's questions over IPC.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { arrivals, summary } from './arrivals.ts';

type Ask = { n: number; ask: 'count' | 'reset' | 'summary'; name?: string };
type Answer = { n: number; count: number; summary?: string };

export interface Receiver {
  url: string;
  /** Events received so far (each id once). */
  count(): Promise<number>;
  /** Forgets the delays measured so far (ids stay). */
  reset(): Promise<void>;
  summary(name: string): Promise<string>;
  close(): void;
}

/** Forks the receiver (inheriting this process's CPU affinity) and waits until it listens. */
export async function startReceiver(): Promise<Receiver> {
  const child = fork(import.meta.filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (${code}) before listening`)));
  });
  let next = 0;
  const waiting = new Map<number, (answer: Answer) => void>();
  child.on('message', (message) => {
    const answer = message as Answer;
    waiting.get(answer.n)?.(answer);
    waiting.delete(answer.n);
  });
  const ask = (question: Omit<Ask, 'n'>) =>
    new Promise<Answer>((resolve) => {
      const n = (next += 1);
      waiting.set(n, resolve);
      child.send({ ...question, n });
    });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: async () => (await ask({ ask: 'count' })).count,
    reset: async () => void (await ask({ ask: 'reset' })),
    summary: async (name) => (await ask({ ask: 'summary', name })).summary!,
    close: () => void child.kill(),
  };
}

if (process.argv.includes('--serve')) {
  const seen = arrivals();
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.add(body);
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', (message) => {
    const question = message as Ask;
    if (question.ask === 'reset') seen.reset();
    const answer: Answer = { n: question.n, count: seen.ids.size };
    if (question.ask === 'summary') answer.summary = summary(question.name ?? 'webhook', seen);
    process.send!(answer);
  });
  process.on('disconnect', () => process.exit(0));
}
