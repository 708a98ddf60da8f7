/**
 * A check on the current state of a resource that a transport hands a service's write, run inside
 * the write's transaction before anything changes; it throws an `AppError` to stop the write. REST's
 * `If-Match` builds one (`ifMatchPrecondition`, core/http/caching.ts); the services stay unaware of HTTP.
 */
export type Precondition<T> = (current: T) => void;
