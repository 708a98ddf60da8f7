import type { LookupAddress, LookupOptions } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import type * as Undici from 'undici';
import { activeTracing, type TraceContext } from '../../core/tracing/tracing.ts';
import { BlockedUrlError, type UrlGuard } from './url-guard.ts';

/**
 * One delivery attempt over HTTP, as the Standard Webhooks specification says: `POST` of the event
 * JSON with `webhook-id` (the event's id), `webhook-timestamp` and `webhook-signature` (one `v1,`
 * signature per secret: two while a rotation overlaps), no credentials of ours, no redirect followed
 * (undici follows none unless asked), `WEBHOOK_TIMEOUT_MS` for the whole answer.
 */

export interface Attempt {
  url: string;
  secrets: readonly string[];
  eventId: string;
  payload: string;
  /** The trace the attempt joins (its event's writer's); unset: the active one, or a trace of its own. */
  trace?: TraceContext | undefined;
}

export type AttemptResult =
  | { kind: 'answered'; status: number; retryAfter: string | undefined }
  | { kind: 'failed'; error: string }
  | { kind: 'refused'; error: string };

const MAX_ERROR_LENGTH = 200;

/** The `webhook-signature` header: the signatures of every secret, space-separated. */
export function signatureHeader(secrets: readonly string[], eventId: string, at: Date, payload: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(' ');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The connection's own name lookup goes through the guard: the addresses connected to are exactly the
 * ones checked, so a name that resolves to a public address at the check and to a private one at the
 * connection (DNS rebinding) is refused at the connection too.
 */
function guardedLookup(guard: UrlGuard) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    guard.resolve(hostname).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

export interface DeliverySender {
  send(attempt: Attempt, signal?: AbortSignal): Promise<AttemptResult>;
  close(): Promise<void>;
}

export function createDeliverySender(options: { timeoutMs: number; guard: UrlGuard }): DeliverySender {
  // undici is loaded with the first delivery: a service without webhook endpoints never loads it (its
  // modules held megabytes of the idle heap).
  let client: Promise<{ agent: Undici.Agent; request: typeof Undici.request }> | undefined;
  const undici = () =>
    (client ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connect: {
          timeout: options.timeoutMs,
          ...(options.guard.enforced ? { lookup: guardedLookup(options.guard) } : {}),
        },
      }),
    })));

  return {
    async send(attempt, signal) {
      const url = new URL(attempt.url);
      // A literal address never reaches the lookup: checked here (a name is checked by the lookup too).
      // Outside production (or with private URLs allowed) nothing is refused: no look-up of our own.
      if (options.guard.enforced) {
        try {
          await options.guard.resolve(url.hostname);
        } catch (error) {
          if (error instanceof BlockedUrlError) return { kind: 'refused', error: error.message };
          return { kind: 'failed', error: describe(error) };
        }
      }
      const { agent, request } = await undici();
      const at = new Date();
      const one = abortable(options.timeoutMs, signal);
      // With tracing on, a client span per attempt, in the trace of the request that wrote the event,
      // and its `traceparent` on the request (Standard Webhooks allows headers of one's own): the
      // receiver's work joins the writer's trace.
      const span = activeTracing()?.startHttpClientSpan('POST', url, attempt.trace);
      try {
        const answer = await request(url, {
          method: 'POST',
          dispatcher: agent,
          signal: one.signal,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'content-service-webhooks',
            'webhook-id': attempt.eventId,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signatureHeader(attempt.secrets, attempt.eventId, at, attempt.payload),
            ...span?.headers,
          },
          body: attempt.payload,
        });
        // Read and dropped (up to undici's dump limit), so the connection can be used again.
        await answer.body.dump().catch(() => {});
        span?.end({ status: answer.statusCode });
        const retryAfter = answer.headers['retry-after'];
        return {
          kind: 'answered',
          status: answer.statusCode,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        };
      } catch (error) {
        span?.end({ error: one.timedOut() ? 'timeout' : errorType(error) });
        if (error instanceof BlockedUrlError || (error as Error)?.cause instanceof BlockedUrlError)
          return { kind: 'refused', error: describe(error) };
        return {
          kind: 'failed',
          error: one.timedOut() ? `no answer within ${options.timeoutMs} ms` : describe(error),
        };
      } finally {
        one.done();
      }
    },
    close: async () => {
      if (client) await (await client).agent.close();
    },
  };
}

/**
 * The signal of one attempt: aborted after `timeoutMs` or when `stop` (the worker's) aborts. Its timer is
 * cleared and its listener removed as soon as the attempt ends (`done`). `AbortSignal.timeout` kept each
 * attempt's signal and timer alive for the whole timeout (10 s: ten thousand of them at a thousand
 * deliveries a second, promoted to the old generation) and `AbortSignal.any` tied each to the worker's
 * signal: more than twice the CPU of an attempt with one timer of its own.
 */
function abortable(timeoutMs: number, stop: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${timeoutMs} ms`));
  }, timeoutMs);
  const onStop = () => controller.abort(stop?.reason);
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    },
  };
}

/** The span's `error.type`: a short, bounded name (the error's code or class), never its message. */
function errorType(error: unknown): string {
  const err = error as { code?: unknown; name?: unknown } | undefined;
  if (typeof err?.code === 'string') return err.code;
  return typeof err?.name === 'string' ? err.name : '_OTHER';
}

function describe(error: unknown): string {
  const err = error as { code?: string; message?: string };
  return `${err.code ? `${err.code}: ` : ''}${err.message ?? String(error)}`.slice(0, MAX_ERROR_LENGTH);
}
