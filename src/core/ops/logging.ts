import { pino, type Logger, type LoggerOptions } from 'pino';
import { activeTracing } from '../tracing/tracing.ts';
import { batchedDestination, LOG_BATCHES, type BatchedDestination } from './log-batches.ts';

/**
 * With tracing on (core/tracing/), every line written inside a span carries its `trace_id` and `span_id`
 * (DECISIONS §17), through pino's mixin; with tracing off there is no mixin at all.
 */
function traceFields(): Pick<LoggerOptions, 'mixin'> {
  const tracing = activeTracing();
  return tracing ? { mixin: () => tracing.logFields() } : {};
}

/**
 * Where log lines go. JSON lines (one object a line, for a collector) unless stdout is a terminal,
 * where pino-pretty (in pino's worker thread) prints them for a person: time, level, message, the
 * request's method, URL and status, then the other fields on the same line.
 * JSON lines are written asynchronously, gathered until 16 KB are pending or 100 ms have passed
 * (log-batches.ts): one write system call per batch instead of one per line (each line was its own
 * write, handed to libuv's thread pool: a share of the server's CPU under the nested GraphQL load).
 * A line reaches the collector at most 100 ms late; what is
 * gathered is written when the process exits. Not synchronous writes: sonic-boom answers a full
 * pipe (EAGAIN) by sleeping the main thread 100 ms.
 */
export function loggerOptions(
  level: string,
  terminal = process.stdout.isTTY === true,
): LoggerOptions & { stream?: BatchedDestination } {
  if (!terminal) return { level, ...traceFields(), stream: batchedDestination(process.stdout.fd ?? 1, LOG_BATCHES) };
  return {
    level,
    ...traceFields(),
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

/**
 * A logger outside the app (start-up before the app exists, a cluster's primary): JSON to stdout, or pretty
 * on a terminal. Written synchronously: these lines are few, and each is out before the call returns, so a
 * start-up line is never printed after the app's "Server listening" (pino's default destination kept the
 * second of two lines back until the first write's callback ran, late while the app was being built) nor lost
 * when the process exits or is killed.
 */
export function createLogger(level: string, terminal = process.stdout.isTTY === true): Logger {
  if (level === 'silent') return pino({ level });
  if (!terminal) return pino({ level, ...traceFields() }, pino.destination({ fd: process.stdout.fd ?? 1, sync: true }));
  return pino(loggerOptions(level, terminal));
}
