import type { Config } from '../config/config.ts';
import { createDatabase } from '../core/db/database.ts';
import { migrateDatabase } from '../bootstrap.ts';
import { parseSeedOptions, SEED_USAGE } from './seed-options.ts';
import { terminalProgress } from './seed-progress.ts';
import { seedDatabase, type TableSummary } from './seed-runner.ts';

/**
 * `seed [options]`: the server's migrations, then the generated data set with a progress bar per table on
 * stderr, then one summary line per table on stdout. A bad option throws one line (the CLI prints it).
 */
export async function runSeedCommand(config: Config, args: string[]): Promise<void> {
  const options = parseSeedOptions(args);
  if (!options) {
    console.log(SEED_USAGE);
    return;
  }
  const db = createDatabase(config.DATABASE_URL);
  const progress = terminalProgress();
  try {
    // Every migration the server would apply, modules' included: the server then finds nothing to do.
    await migrateDatabase(db, { info: (line) => console.error(line), warn: (line) => console.error(line) });
    const started = performance.now();
    const summaries = await seedDatabase(db, options, { progress, currency: config.STORE_CURRENCY });
    progress.close();
    for (const line of formatSummary(summaries, (performance.now() - started) / 1000)) console.log(line);
  } finally {
    progress.close();
    await db.destroy();
  }
}

export function formatSummary(summaries: TableSummary[], totalSeconds: number): string[] {
  const line = (table: string, rows: number, seconds: number) =>
    `${table.padEnd(14)}${rows.toLocaleString('en-US').padStart(12)} rows ${seconds.toFixed(2).padStart(9)} s`;
  const rows = summaries.reduce((sum, s) => sum + s.rows, 0);
  return [...summaries.map((s) => line(s.table, s.rows, s.seconds)), line('total', rows, totalSeconds)];
}
