import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export interface WorkerLog {
  error(object: unknown, message: string): void;
}

export interface PollingWorker {
  /** Names this process in claims (`host:pid:random`), so a lease says who holds it. */
  readonly id: string;
  start(): void;
  /** Stops polling and waits for the step in hand to finish. */
  stop(): Promise<void>;
  /**
   * There is work now (e.g. a commit this process made): steps within `wakeDelayMs` instead of at the
   * next poll, or right after the step in hand. Cheap enough to call on every commit; wakes coalesce.
   */
  wake(): void;
}

export interface PollingWorkerOptions {
  /** What the worker is, for its log lines. */
  name: string;
  intervalMs: number;
  /** How soon a `wake()` runs a step (default 0): a short delay gathers the wakes of a burst into one step. */
  wakeDelayMs?: number;
  log: WorkerLog;
  /** One unit of work; true when there may be more right away (the worker then steps again at once). */
  step(workerId: string): Promise<boolean>;
}

/**
 * A background loop in the server process: at start, then every `intervalMs`, it runs `step` until
 * it reports nothing left. Several instances may poll one database: each step must decide in the
 * database which instance does a piece of work (a claim, a conditional update), never here.
 */
export function createPollingWorker(options: PollingWorkerOptions): PollingWorker {
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const wakeDelayMs = options.wakeDelayMs ?? 0;
  let timer: NodeJS.Timeout | undefined;
  /** When the scheduled step runs (Infinity while none is scheduled). */
  let dueAt = Infinity;
  let current: Promise<void> | undefined;
  let stopped = true;
  /** A wake arrived while a step was running: step again soon rather than at the next poll. */
  let woken = false;

  async function drain(): Promise<void> {
    try {
      while (!stopped && (await options.step(id))) {
        // Keep going while there is work; the next poll picks up whatever arrives later.
      }
    } catch (error) {
      // A database hiccup must not kill the loop; the next poll tries again.
      options.log.error({ err: error }, `${options.name} poll failed`);
    }
  }

  function schedule(delay: number): void {
    dueAt = Date.now() + delay;
    timer = setTimeout(() => {
      dueAt = Infinity;
      woken = false;
      current = drain().finally(() => {
        current = undefined;
        if (!stopped) schedule(woken ? wakeDelayMs : options.intervalMs);
      });
    }, delay);
    timer.unref();
  }

  return {
    id,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
    wake() {
      if (stopped) return;
      if (current) {
        woken = true;
        return;
      }
      if (Date.now() + wakeDelayMs >= dueAt) return;
      clearTimeout(timer);
      schedule(wakeDelayMs);
    },
  };
}
