import type * as Undici from 'undici';

/**
 * One HTTP request whose answer is only its status and `Retry-After`, on undici's own dispatch API (a
 * handler object): no response stream, no promise chain per chunk. `undici.request` builds a Readable for
 * every answer and `body.dump()` drains it through the stream machinery; this takes 0.80 of the sender's
 * CPU per attempt, 1 and 16 in flight (`bench/attempt-cost.ts`). No Error is made on the way of an answer:
 * its stack trace alone cost ~12 µs an attempt.
 *
 * The answer's body is read and dropped so the connection can be used again, up to `DRAIN_LIMIT` (as
 * `body.dump()` does); a longer one ends the connection. The whole request is bounded by `timeoutMs`
 * (also the agent's connect, headers and body timeouts) and ended at once by `stop`.
 */

export type StatusAnswer =
  | { kind: 'answered'; status: number; retryAfter: string | undefined }
  | { kind: 'failed'; error: unknown; timedOut: boolean };

/** What is read of an answer's body before the connection is given up (undici's `dump()` limit). */
const DRAIN_LIMIT = 128 * 1024;

export interface StatusRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  stop?: AbortSignal | undefined;
}

export function requestStatus(dispatcher: Undici.Dispatcher, request: StatusRequest): Promise<StatusAnswer> {
  return new Promise((resolve) => {
    const handler = new StatusHandler(resolve, request.timeoutMs, request.stop);
    dispatcher.dispatch(
      {
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
      },
      handler,
    );
  });
}

/** One request's handler: a class, so an attempt allocates one object and no closure per callback. */
class StatusHandler implements Undici.Dispatcher.DispatchHandler {
  #controller: Undici.Dispatcher.DispatchController | undefined;
  /** An abort asked for before the connection was made: done at `onRequestStart`. */
  #pending: Error | undefined;
  #timedOut = false;
  #answer: StatusAnswer | undefined;
  #drained = 0;
  readonly #resolve: (answer: StatusAnswer) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #stop: AbortSignal | undefined;
  readonly #onStop = () => this.#abort(this.#stop?.reason instanceof Error ? this.#stop.reason : new Error('stopped'));

  constructor(resolve: (answer: StatusAnswer) => void, timeoutMs: number, stop: AbortSignal | undefined) {
    this.#resolve = resolve;
    this.#stop = stop;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    if (stop?.aborted) this.#onStop();
    else stop?.addEventListener('abort', this.#onStop, { once: true });
  }

  onRequestStart(controller: Undici.Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#pending) controller.abort(this.#pending);
  }

  onResponseStart(_controller: unknown, status: number, headers: Record<string, string | string[] | undefined>): void {
    // An informational answer (1xx) is not the answer.
    if (status < 200) return;
    const retryAfter = headers['retry-after'];
    this.#answer = { kind: 'answered', status, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  }

  onResponseData(controller: Undici.Dispatcher.DispatchController, chunk: Buffer): void {
    this.#drained += chunk.length;
    // The status is known: a body this long is not worth the connection.
    if (this.#drained > DRAIN_LIMIT) {
      controller.abort(new Error('answer body too long'));
      this.#finish(this.#answer!);
    }
  }

  onResponseEnd(): void {
    // Never without a status in HTTP/1.1; an Error (and its stack) is made only if it were.
    this.#finish(this.#answer ?? { kind: 'failed', error: new Error('no status'), timedOut: false });
  }

  onResponseError(_controller: unknown, error: Error): void {
    // After the status, an error of the body (a timeout, a reset) leaves the answer as it was.
    this.#finish({ kind: 'failed', error, timedOut: this.#timedOut });
  }

  #abort(reason: Error): void {
    if (this.#controller) this.#controller.abort(reason);
    else this.#pending = reason;
  }

  /** Settles once (a later call changes nothing): the answer if its status came, else `otherwise`. */
  #finish(otherwise: StatusAnswer): void {
    clearTimeout(this.#timer);
    this.#stop?.removeEventListener('abort', this.#onStop);
    this.#resolve(this.#answer ?? otherwise);
  }
}
