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

/** `context` as a chain's start (the root's one shared, another's a link over it; a request's slot, what it holds now). */
export function linkedOver(context: Context): Context {
  if (context instanceof RequestSlot) return context.current;
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

/** How an operation leaves its span's context: `returned` once its function has returned, `settled` once its answer is in. */
export interface OperationScope {
  returned(): void;
  settled(): void;
}

/**
 * A request's context, as its context frame holds it: the request's own (`base`), or, while the request's
 * GraphQL operation runs, the operation's (`current`). The operation sets its context here instead of
 * entering a frame of its own and a second restoring the request's (each frame a copy of a map: two of
 * a traced GraphQL answer's three; README.md here, "Dependencies"). Read through as the context it holds
 * now; a context made from it (`setValue`) is made from that one and keeps it.
 */
export class RequestSlot implements Context, OperationScope {
  readonly base: Context;
  current: Context;

  constructor(base: Context) {
    this.base = base;
    this.current = base;
  }

  getValue(key: symbol): unknown {
    return this.current.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return this.current.setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return this.current.deleteValue(key);
  }

  /** Nothing: the operation's context stays the request's until its answer is in. */
  returned(): void {}

  settled(): void {
    this.current = this.base;
  }
}

/**
 * `span` the active span over `under` from here on, in what runs next and everything it starts, not
 * restored: for the request's span, entered by the first hook of a request, where what follows the
 * hooks in the same turn is the server's own parsing, and the next request's hooks enter their own (a
 * test pipelines two requests in one packet). One context frame a request instead of two; a traced W1
 * answered 1.04–1.07× as many requests a second (README.md here, "Dependencies"). Its frame holds a
 * `RequestSlot` for the request's operation unless `streaming` (an event stream runs one operation an
 * event, any number at once: each enters a frame of its own).
 */
export function enterSpan(contexts: ContextEntry, under: Context, span: Span, streaming = false): void {
  const context = trace.setSpan(linkedOver(under), span);
  contexts.attach(streaming ? context : new RequestSlot(context));
}

/** The context an operation's span starts under: a request's own, though another operation of it holds its slot. */
export function operationParent(under: Context): Context {
  return under instanceof RequestSlot ? under.base : under;
}

/**
 * Makes `span` (started under `operationParent(under)`) the active span of an operation, in what it runs
 * and everything that starts, until the scope's `settled`: in the request's slot when it is free (no
 * frame), else in a frame entered now and left once the operation's function has `returned` (as
 * `context.with(trace.setSpan(under, span), run)`, with `attach` and a linked context: measured cheaper,
 * README.md here, "Dependencies"). Two operations at once in one request's frame: the second is the
 * first's sibling, in a frame of its own.
 */
export function enterOperation(contexts: ContextEntry, under: Context, span: Span): OperationScope {
  if (under instanceof RequestSlot) {
    if (under.current === under.base) {
      under.current = trace.setSpan(under.base, span);
      return under;
    }
    under = under.base;
  }
  const entered = contexts.attach(trace.setSpan(linkedOver(under), span));
  return { returned: () => entered.dispose(), settled() {} };
}
