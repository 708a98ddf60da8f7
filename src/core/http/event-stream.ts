/** `text/event-stream` as one of the media types an `Accept` header lists (any case, any parameters). */
const EVENT_STREAM = /(^|,)\s*text\/event-stream\s*(;|,|$)/i;

/**
 * Whether a request's `Accept` asks for Server-Sent Events: what makes `/graphql` answer a subscription as
 * an event stream (graphql/subscriptions), and a request whose operations run one an event, several at
 * once (core/tracing gives it no request slot).
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && EVENT_STREAM.test(accept);
}
