import { pino, type Logger, type LoggerOptions } from 'pino';

/**
 * Where log lines go. JSON lines (one object a line, for a collector) unless stdout is a terminal,
 * where pino-pretty (in pino's worker thread) prints them for a person: time, level, message, the
 * request's method, URL and status, then the other fields on the same line.
 * JSON lines are gathered until 4 KB are pending or 100 ms have passed, then written at once, on the
 * main thread (pino's default, as Node writes to a pipe): one write system call per batch instead of
 * one per line. Asynchronous writes went through libuv's thread pool, one per line at 250 nested
 * GraphQL answers a second: 5.7% of the server's CPU, and the thread hand-off still cost 4–5% at
 * 5,000 answers a second with 4 KB batches (bench/RESULTS.md, session 7). A line reaches the collector
 * at most 100 ms late; pino flushes what is pending when the process exits.
 */
export function loggerOptions(level: string, terminal = process.stdout.isTTY === true): LoggerOptions & { stream?: pino.DestinationStream } {
  if (!terminal) return { level, stream: batchedStdout() };
  return {
    level,
    transport: {
      target: 'pino-pretty',
      options: {
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,req,res',
        singleLine: true,
        messageFormat: '{msg}{if req.method} {req.method} {req.url}{end}{if res.statusCode} → {res.statusCode}{end}',
      },
    },
  };
}

let stdout: pino.DestinationStream | undefined;

/**
 * The process's one destination for JSON lines on stdout (every app of the process shares it). pino
 * flushes an asynchronous destination when the process exits, not a synchronous one, which would
 * otherwise lose its last lines (`Shutdown complete`): the exit hook is ours.
 */
function batchedStdout(): pino.DestinationStream {
  if (stdout) return stdout;
  const stream = pino.destination({ sync: true, minLength: 4096, periodicFlush: 100 });
  process.once('exit', () => stream.flushSync());
  return (stdout = stream);
}

/** A logger outside the app (start-up before the app exists, a cluster's primary): JSON to stdout, or pretty on a terminal. */
export function createLogger(level: string, terminal = process.stdout.isTTY === true): Logger {
  if (!terminal || level === 'silent') return pino({ level });
  return pino(loggerOptions(level, terminal));
}
