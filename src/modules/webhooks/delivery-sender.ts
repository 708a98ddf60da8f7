import type { LookupAddress, LookupOptions } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import type * as Undici from 'undici';
import { activeTracing, type TraceContext } from '../../core/tracing/tracing.ts';
import { requestStatus } from './status-request.ts';
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
  let client: Promise<Undici.Agent> | undefined;
  const undici = () =>
    (client ??= import('undici').then(
      ({ Agent }) =>
        new Agent({
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          connect: {
            timeout: options.timeoutMs,
            ...(options.guard.enforced ? { lookup: guardedLookup(options.guard) } : {}),
          },
        }),
    ));

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
      const agent = await undici();
      const at = new Date();
      // With tracing on, a client span per attempt, in the trace of the request that wrote the event,
      // and its `traceparent` on the request (Standard Webhooks allows headers of one's own): the
      // receiver's work joins the writer's trace.
      const span = activeTracing()?.startHttpClientSpan('POST', url, attempt.trace);
      const answer = await requestStatus(agent, {
        url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'content-service-webhooks',
          'webhook-id': attempt.eventId,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatureHeader(attempt.secrets, attempt.eventId, at, attempt.payload),
          ...span?.headers,
        },
        body: attempt.payload,
        timeoutMs: options.timeoutMs,
        stop: signal,
      });
      if (answer.kind === 'answered') {
        span?.end({ status: answer.status });
        return answer;
      }
      const { error, timedOut } = answer;
      span?.end({ error: timedOut ? 'timeout' : errorType(error) });
      if (error instanceof BlockedUrlError || (error as Error)?.cause instanceof BlockedUrlError)
        return { kind: 'refused', error: describe(error) };
      return { kind: 'failed', error: timedOut ? `no answer within ${options.timeoutMs} ms` : describe(error) };
    },
    close: async () => {
      if (client) await (await client).close();
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
