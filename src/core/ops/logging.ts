import { pino, type Logger, type LoggerOptions } from 'pino';

/**
 * Where log lines go. JSON lines (one object a line, for a collector) unless stdout is a terminal,
 * where pino-pretty (in pino's worker thread) prints them for a person: time, level, message, the
 * request's method, URL and status, then the other fields on the same line.
 * JSON lines are written asynchronously: under load they leave in batches instead of one write
 * system call per line; pino flushes what is pending when the process exits (bench/RESULTS.md).
 */
export function loggerOptions(level: string, terminal = process.stdout.isTTY === true): LoggerOptions & { stream?: pino.DestinationStream } {
  if (!terminal) return { level, stream: pino.destination({ sync: false }) };
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

/** A logger outside the app (start-up before the app exists, a cluster's primary): JSON to stdout, or pretty on a terminal. */
export function createLogger(level: string, terminal = process.stdout.isTTY === true): Logger {
  if (!terminal || level === 'silent') return pino({ level });
  return pino(loggerOptions(level, terminal));
}
