/**
 * A local OTLP/HTTP collector for the bench: a process of its own (on the load generator's core) that
 * reads each export request whole and answers 200, as a collector's receiver does before its pipeline.
 * `startOtlpSink()` starts it and returns its URL; run as a script, it listens on the port given.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort, moveToLoadCore, NODE } from './processes.ts';

export interface OtlpSink {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** The export requests and their bytes received so far. */
  received(): Promise<{ requests: number; bytes: number }>;
  stop(): void;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const port = await freePort();
  const child: ChildProcess = spawn(NODE, [fileURLToPath(import.meta.url), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the OTLP sink exited (${code})`)));
    child.stdout!.once('data', () => resolve());
  });
  if (child.pid !== undefined) moveToLoadCore(child.pid);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    received: async () => (await (await fetch(`${url}/received`)).json()) as { requests: number; bytes: number },
    stop: () => child.kill(),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    if (request.method === 'GET') return void response.end(JSON.stringify(received));
    received.requests += 1;
    request.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'));
}
