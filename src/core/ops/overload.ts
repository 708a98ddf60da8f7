import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { sendError } from '../http/error-envelope.ts';

const RETRY_AFTER_SECONDS = 5;
const SAMPLE_INTERVAL_MS = 100;

/**
 * Sheds load beyond capacity: when the event loop lags past the limit, new requests get a quick
 * 503 with Retry-After instead of joining an ever longer queue. Liveness stays answerable.
 */
export async function registerOverloadProtection(app: FastifyInstance, maxEventLoopDelayMs: number): Promise<void> {
  if (maxEventLoopDelayMs <= 0) return;
  await app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    // The delay is averaged and the verdict held for this long. With the default second, the calm
    // second after a shed one admitted a whole second's arrivals at once (seconds of queued work:
    // p99 5 s in src/reliability/overload-shedding.test.ts); a short window admits small batches.
    sampleInterval: SAMPLE_INTERVAL_MS,
    retryAfter: RETRY_AFTER_SECONDS,
    pressureHandler: (request, reply) => {
      if (request.url === '/healthz') return;
      sendError(
        reply,
        new AppError('SERVICE_UNAVAILABLE', 'The service is overloaded; retry shortly', {
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        }),
      );
    },
  });
}
