import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ReportsService } from './reports.service.ts';

export interface WorkerLog {
  error(object: unknown, message: string): void;
}

export interface ReportWorker {
  readonly id: string;
  start(): void;
  /** Stops polling and waits for the job in hand to finish. */
  stop(): Promise<void>;
}

/**
 * Runs report jobs in the server process: every `pollMs` it claims jobs until none is left.
 * Several instances may poll one database; the claim in the repository gives each job to one.
 */
export function createReportWorker(reports: ReportsService, options: { pollMs: number; log: WorkerLog }): ReportWorker {
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = true;

  async function drain(): Promise<void> {
    try {
      while (!stopped && (await reports.runNextJob(id))) {
        // Keep going while there is work; the next poll picks up whatever arrives later.
      }
    } catch (error) {
      // A database hiccup must not kill the loop; the next poll tries again.
      options.log.error({ err: error }, 'report worker poll failed');
    }
  }

  function schedule(delay: number): void {
    timer = setTimeout(() => {
      current = drain().finally(() => {
        current = undefined;
        if (!stopped) schedule(options.pollMs);
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
  };
}
