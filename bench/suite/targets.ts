/** One measured line of the results table: medians over the repeated runs. */
export interface ResultRow {
  /** `reference`: the hand-written Fastify + pg app (bench/reference/) on the PostgreSQL database. */
  dialect: 'ceiling' | 'sqlite' | 'postgres' | 'reference';
  workload: string;
  title: string;
  rps: number;
  p50: number;
  p99: number;
  /** Summed over every measured run. */
  errors: number;
  /** Largest VmRSS sampled during the measured runs, bytes. */
  rssPeak: number;
  /** Server CPU time (user + system) per answered request, microseconds: robust to a busy machine. */
  cpuUs: number;
  /** CPU time of the PostgreSQL processes serving the bench database, per answer, microseconds. */
  pgCpuUs?: number;
  note?: string;
}

export interface SoakResult {
  dialect: string;
  seconds: number;
  rps: number;
  p99: number;
  errors: number;
  /** [seconds since start, VmRSS bytes] */
  rss: [number, number][];
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
}

/**
 * The best peer of issue 9 on each workload (2 cores, PostgreSQL sharing them): the highest
 * requests/s any alternative reached, and the lowest p99 that same peer reached.
 */
export const BEST_PEERS: Record<string, { peer: string; rps: number; p99: number }> = {
  W1: { peer: 'json-server', rps: 5100, p99: 12 },
  W2: { peer: 'Fastify + Mercurius + pg', rps: 2400, p99: 22 },
  W3: { peer: 'Fastify + Mercurius (jit, loaders) + pg', rps: 107, p99: 350 },
  W4: { peer: 'Fastify + Mercurius (jit, loaders) + pg', rps: 4700, p99: 24 },
};

const MB = 1024 * 1024;
const RSS_LIMIT = 150 * MB;
const SQLITE_CEILING_SHARE: Record<string, number> = { W1: 0.4, W4: 0.4, W2: 0.25 };

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Every target of the issue that the measured rows can decide; `met: null` when not measured. */
export function checkTargets(rows: ResultRow[], ceilingRps: number, soaks: SoakResult[]): TargetCheck[] {
  const find = (dialect: string, workload: string) => rows.find((r) => r.dialect === dialect && r.workload === workload);
  const checks: TargetCheck[] = [];
  const add = (target: string, row: ResultRow | undefined, measured: (r: ResultRow) => string, met: (r: ResultRow) => boolean) =>
    checks.push({ target, measured: row ? measured(row) : 'not measured', met: row ? met(row) : null });

  for (const [workload, share] of Object.entries(SQLITE_CEILING_SHARE)) {
    add(`SQLite ${workload} ≥ ${share * 100}% of the ceiling`, find('sqlite', workload), (r) => `${((r.rps / ceilingRps) * 100).toFixed(1)}%`, (r) => r.rps >= share * ceilingRps);
  }
  const w3 = BEST_PEERS.W3!;
  add(`SQLite W3 ≥ 10× best peer (${fmt(w3.rps * 10)} req/s)`, find('sqlite', 'W3'), (r) => `${fmt(r.rps)} req/s (${(r.rps / w3.rps).toFixed(1)}×)`, (r) => r.rps >= 10 * w3.rps);
  for (const [workload, peer] of Object.entries(BEST_PEERS)) {
    add(
      `PostgreSQL ${workload} ≥ 1.5× ${peer.peer} (${fmt(peer.rps * 1.5)} req/s), p99 < ${peer.p99} ms`,
      find('postgres', workload),
      (r) => `${fmt(r.rps)} req/s (${(r.rps / peer.rps).toFixed(2)}×), p99 ${r.p99} ms`,
      (r) => r.rps >= 1.5 * peer.rps && r.p99 < peer.p99,
    );
  }
  for (const dialect of ['sqlite', 'postgres']) {
    const served = rows.filter((r) => r.dialect === dialect);
    checks.push({
      target: `${dialect}: peak RSS under load < 150 MB`,
      measured: served.length ? `${(Math.max(...served.map((r) => r.rssPeak)) / MB).toFixed(0)} MB` : 'not measured',
      met: served.length ? served.every((r) => r.rssPeak < RSS_LIMIT) : null,
    });
    for (const workload of ['W5', 'W8']) {
      add(`${dialect}: ${workload} without errors`, find(dialect, workload), (r) => `${r.errors} errors`, (r) => r.errors === 0);
    }
    add(`${dialect}: W8 p99 < 50 ms`, find(dialect, 'W8'), (r) => `${r.p99} ms`, (r) => r.p99 < 50);
    const soak = soaks.find((s) => s.dialect === dialect);
    const growth = soak ? rssGrowth(soak) : 0;
    checks.push({
      target: `${dialect}: no RSS growth across a 5-minute W8 run`,
      measured: soak ? `${soak.seconds} s: RSS ${(growth / MB).toFixed(1)} MB from minute 1 to the end, ${soak.errors} errors` : 'not measured (run with --soak 300)',
      met: soak ? growth < 10 * MB && soak.seconds >= 300 : null,
    });
  }
  return checks;
}

/** RSS at the end minus RSS once warm (after the first minute, or a fifth of a shorter run). */
export function rssGrowth(soak: SoakResult): number {
  const warm = Math.min(60, soak.seconds / 5);
  const after = soak.rss.filter(([t]) => t >= warm);
  if (after.length < 2) return 0;
  return after.at(-1)![1] - after[0]![1];
}
