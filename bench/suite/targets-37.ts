/**
 * Issue 37's targets: the service against the bare stack (bench/bare/) of the same run, its tails
 * (p99 against p50) and its memory on every workload. Issue 20's (targets.ts) stay beside them.
 */
import type { ResultRow, TargetCheck } from './targets.ts';

const MB = 1024 * 1024;
/** PostgreSQL against the bare stack: requests/s ratio at least `rps`, and (`p99`) a p99 no higher than its. */
const BARE_RATIO: Record<string, { rps: number; p99: boolean }> = {
  W1: { rps: 1, p99: true },
  W2: { rps: 1, p99: true },
  W3: { rps: 2.5, p99: false },
  W4: { rps: 1, p99: true },
};
/** p99 at most 3× p50 on every workload, both databases. */
export const TAIL_LIMIT = 3;
/** Peak RSS under load below 150 MB on every workload, both databases: a 256 MB container with headroom. */
export const RSS_LIMIT = 150 * MB;

/** The service's requests/s against the bare stack's: the paired runs' median when they ran in turn. */
export const bareRpsRatio = (row: ResultRow, bare: ResultRow) => row.bareRatio ?? row.rps / bare.rps;
/** p99 / p50 (autocannon counts whole milliseconds: a p50 of 0 counts as 1). */
export const tail = (row: ResultRow) => row.p99 / Math.max(row.p50, 1);

/** Every target of issue 37 the rows can decide (`met: null` when not measured). */
export function checkIssue37(rows: ResultRow[]): TargetCheck[] {
  const find = (dialect: string, workload: string) =>
    rows.find((r) => r.dialect === dialect && r.workload === workload);
  const checks: TargetCheck[] = [];
  for (const [workload, want] of Object.entries(BARE_RATIO)) {
    const bare = find('bare', workload);
    const row = bare && find('postgres', workload);
    checks.push({
      target: `PostgreSQL ${workload} ≥ ${want.rps.toFixed(1)}× the bare stack${want.p99 ? ', p99 no higher than its' : ''}`,
      measured: row
        ? `${bareRpsRatio(row, bare).toFixed(2)}× (${Math.round(row.rps)} vs ${Math.round(bare.rps)} req/s), p99 ${row.p99} vs ${bare.p99} ms`
        : 'not measured',
      met: row ? bareRpsRatio(row, bare) >= want.rps && (!want.p99 || row.p99 <= bare.p99) : null,
    });
  }
  for (const dialect of ['sqlite', 'postgres']) {
    const served = rows.filter((r) => r.dialect === dialect);
    const each = (figure: (r: ResultRow) => string) => served.map((r) => `${r.workload} ${figure(r)}`).join(', ');
    checks.push(
      {
        target: `${dialect}: p99 ≤ ${TAIL_LIMIT}× p50 on every workload`,
        measured: served.length ? each((r) => tail(r).toFixed(1)) : 'not measured',
        met: served.length ? served.every((r) => tail(r) <= TAIL_LIMIT) : null,
      },
      {
        target: `${dialect}: peak RSS under load < ${RSS_LIMIT / MB} MB on every workload`,
        measured: served.length ? `${each((r) => (r.rssPeak / MB).toFixed(0))} MB` : 'not measured',
        met: served.length ? served.every((r) => r.rssPeak < RSS_LIMIT) : null,
      },
    );
  }
  return checks;
}
