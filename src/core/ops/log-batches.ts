import { writeSync } from 'node:fs';
import { pino } from 'pino';

/** What a batch gathers before it is written, and how long a line may wait when fewer arrive. */
export interface LogBatchOptions {
  /** Characters gathered before one write (a line never waits for more). */
  batchChars: number;
  /** A gathered line is written at most this many milliseconds after it arrived. */
  maxDelayMs: number;
}

export const LOG_BATCHES: LogBatchOptions = { batchChars: 16 * 1024, maxDelayMs: 100 };

/** The stream pino writes into: lines in, batches out. */
export interface BatchedDestination {
  write(line: string): void;
  /** Writes every gathered line before returning (the process is exiting). */
  flushSync(): void;
}

/** Every destination of this process, flushed when it ends (one listener per event, not per logger). */
const open = new Set<BatchedDestination>();
let listening = false;
function flushAtExit(destination: BatchedDestination): void {
  open.add(destination);
  if (listening) return;
  listening = true;
  process.on('exit', () => {
    for (const each of open) each.flushSync();
  });
}

/**
 * Log lines gathered in an array and handed to sonic-boom (pino's own asynchronous destination) as one
 * string per batch. sonic-boom alone gathers by appending each line to the pending string and measuring
 * that string's byte length again on every line (`Buffer.byteLength` of a growing concatenation,
 * flattened each time), a cost that grows with the batch (the profile is in bench/RESULTS.md, issue 20
 * session 8). Here a line costs an array push; a batch one join and one write. sonic-boom
 * still owns the file: the write in flight, partial writes, EAGAIN, a closed pipe.
 *
 * At exit the gathered lines are written synchronously (the event loop is gone): sonic-boom is switched
 * to synchronous writes and flushed, as pino flushes its own destination at exit.
 */
export function batchedDestination(
  fd: number,
  { batchChars, maxDelayMs }: LogBatchOptions = LOG_BATCHES,
): BatchedDestination {
  // sonic-boom's `sync` and `destroyed` are plain fields, read on every write; its typings omit them.
  const file = pino.destination({ fd, sync: false, minLength: 0 }) as ReturnType<typeof pino.destination> & {
    sync: boolean;
    destroyed: boolean;
  };
  let lines: string[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  const take = (): string => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    const batch = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    chars = 0;
    return batch;
  };
  const handOver = () => {
    if (lines.length > 0 && !file.destroyed) file.write(take());
  };
  const destination: BatchedDestination = {
    write(line) {
      lines.push(line);
      chars += line.length;
      if (chars >= batchChars) handOver();
      else if (timer === undefined) timer = setTimeout(handOver, maxDelayMs).unref();
    },
    flushSync() {
      if (file.destroyed) {
        // pino ended the file when the loop ran dry (beforeExit); what came after goes out directly.
        if (lines.length > 0) writeSync(fd, take());
        return;
      }
      file.sync = true;
      handOver();
      file.flushSync();
    },
  };
  flushAtExit(destination);
  return destination;
}
