/**
 * Admission for expensive GraphQL operations: at most `slots` of them execute at once in this process;
 * the others wait their turn, first come first served, before any resolver runs.
 *
 * Why: on PostgreSQL a nested operation awaits the database once per level, and an answer under
 * construction stays alive across those waits. With many callers executing at once, each answer lived
 * through several young-generation collections and was promoted: more memory promoted per answer and
 * fewer answers a second than with a few at once (bench/RESULTS.md, "Changes", 18). Waiting before
 * execution holds only the request. Cheap operations never wait.
 */
export interface ExecutionGate {
  /** Resolves when a slot is free; the caller must `leave()` exactly once afterwards. */
  enter(): Promise<void>;
  leave(): void;
  /** Operations executing and waiting now (tests, metrics). */
  readonly executing: number;
  readonly waiting: number;
}

export function createExecutionGate(slots: number): ExecutionGate {
  let executing = 0;
  const queue: (() => void)[] = [];
  return {
    enter() {
      if (executing < slots) {
        executing += 1;
        return Promise.resolve();
      }
      // The slot is handed over by leave(): `executing` stays counted for the next in line.
      return new Promise<void>((resolve) => queue.push(resolve));
    },
    leave() {
      const next = queue.shift();
      if (next) next();
      else executing -= 1;
    },
    get executing() {
      return executing;
    },
    get waiting() {
      return queue.length;
    },
  };
}

/** What the pre-execution checks leave on an operation's context (the object runGraphQL passed in). */
export interface GatedContext {
  /** The operation's cost, from the cost check. */
  operationCost?: number;
  /** Set while the operation holds a slot of this gate. */
  gate?: ExecutionGate;
}

/** Gives the context's slot back, if it holds one; safe to call more than once. */
export function leaveGate(context: GatedContext): void {
  const { gate } = context;
  context.gate = undefined;
  gate?.leave();
}
