import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.ts';

/**
 * The server listens before it migrates (DECISIONS §1, ops): a process migrating a large database is
 * alive, and an orchestrator's liveness probe (`/healthz`) must not kill it mid-build. Until the
 * migrations are done the gate is closed: `/readyz` answers 503 `{"status": "migrating", "migration",
 * "since"}`, every other request but `/healthz` and `/metrics` a 503 in the error envelope with
 * `Retry-After`, and the background workers wait. `open()` lets everything through.
 */
export interface MigrationGate {
  readonly isOpen: boolean;
  /** What `/readyz` shows while closed: the migration running (null before the first starts) and since when. */
  readonly status: { status: 'migrating'; migration: string | null; since: string };
  /** Resolves when the gate opens. */
  readonly opened: Promise<void>;
  /** A migration (or an online index build) starts now. */
  starting(migration: string): void;
  open(): void;
}

export function createMigrationGate(options: { open: boolean; now?: () => Date } = { open: true }): MigrationGate {
  const now = options.now ?? (() => new Date());
  let isOpen = options.open;
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  if (isOpen) release();
  const status: MigrationGate['status'] = { status: 'migrating', migration: null, since: now().toISOString() };
  return {
    get isOpen() {
      return isOpen;
    },
    status,
    opened,
    starting(migration) {
      status.migration = migration;
      status.since = now().toISOString();
    },
    open() {
      isOpen = true;
      release();
    },
  };
}

/** Routes answered while the gate is closed: liveness, readiness and the metrics. */
const ALWAYS = new Set(['/healthz', '/readyz', '/metrics']);

/** Refuses every request but liveness, readiness and metrics while `gate` is closed. */
export function registerMigrationGate(app: FastifyInstance, gate: MigrationGate): void {
  if (gate.isOpen) return;
  app.addHook('onRequest', (request, _reply, done) => {
    if (gate.isOpen || ALWAYS.has(request.routeOptions.url ?? '')) return done();
    done(
      new AppError('SERVICE_UNAVAILABLE', 'The service is migrating its database; retry shortly', {
        headers: { 'Retry-After': '5' },
      }),
    );
  });
}
