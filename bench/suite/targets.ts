/** One measured line of the results table: medians over the repeated runs. */
export interface ResultRow {
  /**
   * `reference`: the hand-written Fastify + pg app (bench/reference/) on the PostgreSQL database;
   * `bare`: the bare stack (bench/bare/), which does none of the service's work.
   */
  dialect: 'ceiling' | 'sqlite' | 'postgres' | 'reference' | 'bare';
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
  /**
   * Measured in turn with its base (the reference, or the ceiling for SQLite W1/W4): the median over
   * the runs of this row's requests/s divided by the base's in the run just after it. The ratio the
   * targets use: a burst of the machine's load that hits one run of a pair leaves the median alone.
   */
  pairedRatio?: number;
  /** The same against the bare stack, when it ran in turn with this row (PostgreSQL W1–W4). */
  bareRatio?: number;
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

const MB = 1024 * 1024;
/** Issue 20: peak RSS under load below 200 MB on both databases (150 MB is the goal after that). */
const RSS_LIMIT = 200 * MB;
/** Issue 20: SQLite W1 and W4 at 20% or more of the raw node:http ceiling of the same run. */
const SQLITE_CEILING_SHARE: Record<string, number> = { W1: 0.2, W4: 0.2 };
/** The SQLite workloads the ceiling is loaded in turn with (bench.ts), so their share compares like with like. */
export const CEILING_SHARE_WORKLOADS = Object.keys(SQLITE_CEILING_SHARE);

/** A row's requests/s against its base: the paired runs' median when they ran in turn. */
export function rpsRatio(row: ResultRow, base: ResultRow): number {
  return row.pairedRatio ?? row.rps / base.rps;
}

/** The ceiling a row is compared to: the one loaded in turn with its workload, else the run's. */
export function ceilingOf(rows: ResultRow[], row: ResultRow): ResultRow | undefined {
  const beside =
    row.dialect === 'sqlite' ? rows.find((r) => r.dialect === 'ceiling' && r.workload === row.workload) : undefined;
  return beside ?? rows.find((r) => r.dialect === 'ceiling' && r.workload === '–');
}
/** Issue 20: PostgreSQL against the hand-written reference of the same run (requests/s ratio). */
const REFERENCE_RATIO: Record<string, { rps: number; p99: boolean }> = {
  W1: { rps: 1.2, p99: true },
  W2: { rps: 1.2, p99: true },
  W3: { rps: 2, p99: false },
  W4: { rps: 1.2, p99: true },
};
/** Issue 20: the W3 tail, p99 at most 3× p50, on both databases. */
const W3_TAIL = 3;

/** Every target of issue 20 (and issue 9's error and soak checks) the measured rows can decide; `met: null` when not measured. */
export function checkTargets(rows: ResultRow[], ceilingRps: number, soaks: SoakResult[]): TargetCheck[] {
  const find = (dialect: string, workload: string) =>
    rows.find((r) => r.dialect === dialect && r.workload === workload);
  const checks: TargetCheck[] = [];
  const add = (
    target: string,
    row: ResultRow | undefined,
    measured: (r: ResultRow) => string,
    met: (r: ResultRow) => boolean,
  ) => checks.push({ target, measured: row ? measured(row) : 'not measured', met: row ? met(row) : null });

  for (const [workload, want] of Object.entries(REFERENCE_RATIO)) {
    const reference = find('reference', workload);
    add(
      `PostgreSQL ${workload} ≥ ${want.rps}× the hand-written reference${want.p99 ? ', p99 no higher than its' : ''}`,
      reference && find('postgres', workload),
      (r) =>
        `${rpsRatio(r, reference!).toFixed(2)}× (${Math.round(r.rps)} vs ${Math.round(reference!.rps)} req/s), p99 ${r.p99} vs ${reference!.p99} ms`,
      (r) => rpsRatio(r, reference!) >= want.rps && (!want.p99 || r.p99 <= reference!.p99),
    );
  }
  for (const [workload, share] of Object.entries(SQLITE_CEILING_SHARE)) {
    const base = (r: ResultRow) => ceilingOf(rows, r)?.rps ?? ceilingRps;
    const shareOf = (r: ResultRow) => r.pairedRatio ?? r.rps / base(r);
    add(
      `SQLite ${workload} ≥ ${share * 100}% of the ceiling`,
      find('sqlite', workload),
      (r) =>
        `${(shareOf(r) * 100).toFixed(1)}% (${Math.round(r.rps)} vs ${Math.round(base(r))} req/s${r.pairedRatio === undefined ? '' : ', median of paired runs'})`,
      (r) => shareOf(r) >= share,
    );
  }
  for (const dialect of ['sqlite', 'postgres']) {
    add(
      `${dialect}: W3 p99 ≤ ${W3_TAIL}× p50`,
      find(dialect, 'W3'),
      (r) => `${r.p99} / ${r.p50} ms = ${(r.p99 / Math.max(r.p50, 1)).toFixed(1)}`,
      (r) => r.p99 <= W3_TAIL * r.p50,
    );
  }
  for (const dialect of ['sqlite', 'postgres']) {
    const served = rows.filter((r) => r.dialect === dialect);
    checks.push({
      target: `${dialect}: peak RSS under load < ${RSS_LIMIT / MB} MB`,
      measured: served.length ? `${(Math.max(...served.map((r) => r.rssPeak)) / MB).toFixed(0)} MB` : 'not measured',
      met: served.length ? served.every((r) => r.rssPeak < RSS_LIMIT) : null,
    });
    for (const workload of ['W5', 'W8']) {
      add(
        `${dialect}: ${workload} without errors`,
        find(dialect, workload),
        (r) => `${r.errors} errors`,
        (r) => r.errors === 0,
      );
    }
    add(
      `${dialect}: W8 p99 < 50 ms`,
      find(dialect, 'W8'),
      (r) => `${r.p99} ms`,
      (r) => r.p99 < 50,
    );
    const soak = soaks.find((s) => s.dialect === dialect);
    const growth = soak ? rssGrowth(soak) : 0;
    checks.push({
      target: `${dialect}: no RSS growth across a 5-minute W8 run`,
      measured: soak
        ? `${soak.seconds} s: RSS ${(growth / MB).toFixed(1)} MB from minute 1 to the end, ${soak.errors} errors`
        : 'not measured (run with --soak 300)',
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
