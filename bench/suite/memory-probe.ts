/**
 * Loaded into a server process by `NODE_OPTIONS=--import=<this file>` (bench/bulk-processes.ts): appends the
 * process's `process.memoryUsage()` (bytes) and the time to `MEMORY_PROBE_FILE` every 200 ms, one JSON line
 * each, so a benchmark can tell the V8 heap from memory outside it (`external`, `arrayBuffers`) and from what
 * the C allocator keeps (RSS beyond both). Written synchronously: a line is on disk before the process exits.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  setInterval(() => {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ t: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers })}\n`);
  }, 200).unref();
}
