import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { sendError } from '../http/error-envelope.ts';

const RETRY_AFTER_SECONDS = 5;
/**
 * The delay is averaged and the verdict held for this long. With a whole second, the calm second
 * after a shed one admitted a whole second's arrivals at once (seconds of queued work in
 * test/reliability/overload-shedding.test.ts; docs/OPERATIONS.md "Overload"); a short window admits
 * small batches.
 */
const SAMPLE_INTERVAL_MS = 100;

/** CPU time (ms) of the thread running the event loop. */
function loopThreadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}
const RESOLUTION_MS = 10;

/**
 * Sheds load beyond capacity: when the event loop lags past the limit, new requests get a quick
 * 503 with Retry-After instead of joining an ever longer queue. Liveness stays answerable.
 *
 * Measured from the moment the server listens, never before: start-up itself (module loading,
 * migrations, schema compilation, the admin's password hash) blocks the loop for seconds, and
 * @fastify/under-pressure, which starts measuring when it is registered, took that lag, or a first
 * window without a single sample (read as an infinite delay), for overload: the first requests
 * after /healthz said 200 were answered 503 (test/reliability/start-up.test.ts).
 */
export async function registerOverloadProtection(
  app: FastifyInstance,
  maxEventLoopDelayMs: number,
  onShed: () => void = () => {},
): Promise<void> {
  if (maxEventLoopDelayMs <= 0) return;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let delay = 0;
  let sampledAt = 0;
  let timer: NodeJS.Timeout | undefined;

  let cpuAt = loopThreadCpuMs();

  const sample = () => {
    const now = performance.now();
    const cpu = loopThreadCpuMs();
    // No sample in a window means the loop was blocked all along: its lateness is the delay.
    const lateness = histogram.count > 0 ? histogram.mean / 1e6 - RESOLUTION_MS : now - sampledAt - SAMPLE_INTERVAL_MS;
    // Only as much lateness as the loop's own work in the window: a process the machine did not run
    // (a host busy with other work) is late without being overloaded, and shedding would not help it.
    // This thread's CPU time: the loop's work, not the thread pool's or the collector's helpers'.
    delay = Math.max(0, Math.min(lateness, cpu - cpuAt));
    sampledAt = now;
    cpuAt = cpu;
    histogram.reset();
  };

  app.addHook('onListen', (done) => {
    if (timer) return done();
    histogram.reset();
    histogram.enable();
    sampledAt = performance.now();
    cpuAt = loopThreadCpuMs();
    timer = setInterval(sample, SAMPLE_INTERVAL_MS);
    timer.unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(timer);
    histogram.disable();
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (delay <= maxEventLoopDelayMs || request.url === '/healthz') return done();
    // Answered here, not through the error handler: a shed request is not worth a log line (it is counted).
    onShed();
    sendError(
      reply,
      new AppError('SERVICE_UNAVAILABLE', 'The service is overloaded; retry shortly', {
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      }),
    );
  });
}
