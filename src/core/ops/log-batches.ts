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
 * flattened each time), a cost that grows with the batch (bench/RESULTS.md, "Changes", 45). Here a
 * line costs an array push; a batch one join and one write. sonic-boom
 * still owns the file: the write in flight, partial writes, EAGAIN, a closed pipe.
 *
 * A batch is written at once with one synchronous write while sonic-boom has nothing in flight or
 * waiting (a file, or a pipe with room: a batch costs one system call on this thread, no thread-pool
 * hop); what the descriptor does not take at once (a full pipe: EAGAIN, or a partial write) and any
 * batch behind it go to sonic-boom, in order, which never sleeps this thread. So a process that exits
 * right after logging has nothing in flight in the common case: a batch handed to the thread pool just
 * before `process.exit` was lost whenever the pool had not run it yet (seen under load in CI).
 *
 * At exit the gathered lines are written synchronously (the event loop is gone): sonic-boom is switched
 * to synchronous writes and flushed, as pino flushes its own destination at exit.
 */
export function batchedDestination(
  fd: number,
  { batchChars, maxDelayMs }: LogBatchOptions = LOG_BATCHES,
): BatchedDestination {
  // sonic-boom's `sync`, `destroyed`, `_writing` and `_len` (bytes waiting) are plain fields read on
  // every write; its typings omit them. Bytes, so the rest of a partial write never splits a character.
  const file = pino.destination({ fd, sync: false, minLength: 0, contentMode: 'buffer' }) as ReturnType<
    typeof pino.destination
  > & {
    sync: boolean;
    destroyed: boolean;
    _writing: boolean;
    _len: number;
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
    if (lines.length === 0 || file.destroyed) return;
    const bytes = Buffer.from(take());
    if (file._writing || file._len > 0 || file.sync) return void file.write(bytes as unknown as string);
    let written = 0;
    try {
      written = writeSync(fd, bytes);
    } catch {
      // EAGAIN (a full pipe) or a failure: sonic-boom writes it, retrying or reporting as it does.
    }
    if (written < bytes.length) file.write(bytes.subarray(written) as unknown as string);
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
