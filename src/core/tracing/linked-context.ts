import { ROOT_CONTEXT, trace, type Context, type Span } from '@opentelemetry/api';

/** The key of a link that holds nothing: the first link over a base context. */
const NOTHING = Symbol('no value');

/**
 * The API's `Context` as a chain of links, one value each, over a base context: `setValue` makes one
 * small object, where the API's own context copies its whole map and makes three closures every time
 * (measured: README.md here, "Dependencies"). Read the same
 * way: a key's value is the nearest link's, else the base's; a deleted key reads `undefined`. A chain
 * grows by one link a value set: the request's context and the spans started under it, a handful.
 */
export class LinkedContext implements Context {
  readonly #base: Context;
  readonly #key: symbol;
  readonly #value: unknown;

  constructor(base: Context, key: symbol = NOTHING, value: unknown = undefined) {
    this.#base = base;
    this.#key = key;
    this.#value = value;
  }

  getValue(key: symbol): unknown {
    return key === this.#key ? this.#value : this.#base.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new LinkedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new LinkedContext(this, key, undefined);
  }
}

/** The root context as a chain's start: what a request with no propagated parent grows from. */
export const LINKED_ROOT: Context = new LinkedContext(ROOT_CONTEXT);

/** `context` as a chain's start (the root's one shared, another's a link over it). */
export function linkedOver(context: Context): Context {
  return context === ROOT_CONTEXT
    ? LINKED_ROOT
    : context instanceof LinkedContext
      ? context
      : new LinkedContext(context);
}

/** The SDK context manager's `attach`: `context` active until `dispose()` (`AsyncLocalStorage.enterWith`). */
export interface ContextEntry {
  attach(context: Context): { dispose(): void };
}

/**
 * `span` the active span over `under` from here on, in what runs next and everything it starts, not
 * restored: for the request's span, entered by the first hook of a request, where what follows the
 * hooks in the same turn is the server's own parsing, and the next request's hooks enter their own (a
 * test pipelines two requests in one packet). One context frame a request instead of two; a traced W1
 * answered 1.04–1.07× as many requests a second (README.md here, "Dependencies").
 */
export function enterSpan(contexts: ContextEntry, under: Context, span: Span): void {
  contexts.attach(trace.setSpan(linkedOver(under), span));
}

/**
 * `run(...args)` with `span` the active span over `under`, in `run` and in everything it starts, and the context
 * before it active again once `run` returns: what `context.with(trace.setSpan(under, span), run)` does,
 * entered with `attach` and a linked context instead (measured cheaper: README.md here, "Dependencies").
 */
export function inSpan<A extends unknown[], T>(
  contexts: ContextEntry,
  under: Context,
  span: Span,
  run: (...args: A) => T,
  args: A,
): T {
  const entered = contexts.attach(trace.setSpan(linkedOver(under), span));
  try {
    return run(...args);
  } finally {
    entered.dispose();
  }
}
