import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: headers, raw body, and when (ms since epoch). */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** Whether the answer was written in full (false while pending, or when the sender cut the connection first). */
  answered: boolean;
  /** The parsed event (the body is the event JSON). */
  event: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * What to answer: a status (with headers), `hang` (no answer until the connection closes), or a
 * redirect. A script is per path: each request of that path takes the next answer; the last answer
 * repeats. Absent: 200.
 */
export type Answer =
  { status: number; headers?: Record<string, string>; delayMs?: number } | { hang: true } | { redirect: string };

export interface WebhookReceiver {
  /** The receiver's base URL (`http://127.0.0.1:<port>`); paths name endpoints. */
  url: string;
  received: ReceivedRequest[];
  /** The requests to `path` so far. */
  at(path: string): ReceivedRequest[];
  /** Sets the answers of `path` (the last one repeats). */
  script(path: string, ...answers: Answer[]): void;
  /** Answers each request of `path` with what `decide` says (wins over a script). */
  respond(path: string, decide: (request: ReceivedRequest) => Answer): void;
  /** Resolves once `path` has had `count` requests (rejects after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP server for webhook deliveries, scriptable per path. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const scripts = new Map<string, Answer[]>();
  const deciders = new Map<string, (request: ReceivedRequest) => Answer>();
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      let event: ReceivedRequest['event'];
      try {
        event = JSON.parse(body) as ReceivedRequest['event'];
      } catch {
        event = { id: '', type: '', timestamp: '', data: {} };
      }
      const item: ReceivedRequest = { path, headers: request.headers, body, at: Date.now(), answered: false, event };
      response.on('finish', () => {
        item.answered = true;
      });
      received.push(item);
      for (const wake of waiters) wake();
      const script = scripts.get(path) ?? [];
      const answer: Answer = deciders.get(path)?.(item) ??
        (script.length > 1 ? script.shift() : script[0]) ?? { status: 200 };
      if ('hang' in answer) {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      if ('redirect' in answer) {
        response.writeHead(302, { location: answer.redirect }).end();
        return;
      }
      const send = () => response.writeHead(answer.status, answer.headers).end('ok');
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const at = (path: string) => received.filter((item) => item.path === path);

  return {
    url,
    received,
    at,
    script(path, ...answers) {
      scripts.set(path, answers);
    },
    respond(path, decide) {
      deciders.set(path, decide);
    },
    waitFor(path, count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (at(path).length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(at(path));
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${path}: ${at(path).length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
