/**
 * The bench's report against the bare stack (bench/suite/report.ts, targets-37.ts): the service's figures as
 * ratios to the bare stack of the same run, each row's tail, and issue 37's targets decided from them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ratioLines, renderResults } from '../../bench/suite/report.ts';
import { checkIssue37 } from '../../bench/suite/targets-37.ts';
import type { ResultRow } from '../../bench/suite/targets.ts';

const MB = 1024 * 1024;
const row = (dialect: ResultRow['dialect'], workload: string, figures: Partial<ResultRow> = {}): ResultRow => ({
  dialect,
  workload,
  title: 'title',
  rps: 1000,
  p50: 5,
  p99: 15,
  errors: 0,
  rssPeak: 100 * MB,
  cpuUs: 200,
  ...figures,
});
const facts = {
  started: new Date('2026-11-25T00:00:00Z'),
  finished: new Date('2026-11-25T00:10:00Z'),
  loadBefore: [1, 1, 1] as [number, number, number],
  loadAfter: [1, 1, 1] as [number, number, number],
  settings: 'test',
  seeding: [],
};
const find = (checks: ReturnType<typeof checkIssue37>, start: string) =>
  checks.find((c) => c.target.startsWith(start))!;

describe('the bench report against the bare stack', () => {
  it("gives the service's req/s against the bare stack as the paired runs' median, and its p99 ratio", () => {
    // 950 / 1000 req/s by medians, but 0.90 run by run: the paired ratio is the one reported.
    const rows = [row('postgres', 'W1', { rps: 950, p99: 18, bareRatio: 0.9 }), row('bare', 'W1', { p99: 15 })];
    const section = renderResults(rows, [], facts);
    assert.match(section, /\| postgres \| W1 title \| 950 \|[^\n]*\| 3\.6 \| 0\.900 \| 1\.20 \|/);
    assert.match(section, /\| bare \(Fastify \+ pg\) \| W1 title \|[^\n]*\| 3\.0 \| – \| – \|/);
    const lines = ratioLines(rows);
    assert.equal(lines.length, 1, 'one console line: the bare stack (no reference ran)');
    assert.ok(
      lines[0]!.startsWith('  postgres W1 vs bare: req/s 0.90× (950 / 1,000), p99 1.20× (18 / 15 ms)'),
      lines[0],
    );
  });

  it('meets W1, W2 and W4 at 1.0× the bare stack with a p99 no higher than its, W3 at 2.5×', () => {
    const rows = [
      row('postgres', 'W1', { bareRatio: 1.01, p99: 15 }),
      row('bare', 'W1', { p99: 15 }),
      row('postgres', 'W2', { bareRatio: 1.2, p99: 16 }),
      row('bare', 'W2', { p99: 15 }),
      row('postgres', 'W3', { bareRatio: 2.4 }),
      row('bare', 'W3'),
    ];
    const checks = checkIssue37(rows);
    assert.equal(find(checks, 'PostgreSQL W1').met, true);
    assert.equal(find(checks, 'PostgreSQL W2').met, false, 'a p99 above the bare stack’s misses');
    assert.equal(find(checks, 'PostgreSQL W3').met, false, '2.4× misses 2.5×');
    assert.equal(find(checks, 'PostgreSQL W4').met, null, 'not measured');
    assert.equal(find(checks, 'PostgreSQL W4').measured, 'not measured');
  });

  it('checks p99 ≤ 3× p50 and peak RSS < 150 MB on every workload of each database, naming each', () => {
    const rows = [
      row('sqlite', 'W1', { p50: 5, p99: 15, rssPeak: 149 * MB }),
      row('sqlite', 'W5', { p50: 5, p99: 16, rssPeak: 150 * MB }),
      row('postgres', 'W1', { p50: 5, p99: 15, rssPeak: 120 * MB }),
      // Not the service: the bare stack's tail and memory are not the service's targets.
      row('bare', 'W1', { p50: 1, p99: 90, rssPeak: 300 * MB }),
    ];
    const checks = checkIssue37(rows);
    assert.deepEqual(find(checks, 'sqlite: p99'), {
      target: 'sqlite: p99 ≤ 3× p50 on every workload',
      measured: 'W1 3.0, W5 3.2',
      met: false,
    });
    assert.equal(find(checks, 'sqlite: peak RSS').measured, 'W1 149, W5 150 MB');
    assert.equal(find(checks, 'sqlite: peak RSS').met, false);
    assert.equal(find(checks, 'postgres: p99').met, true);
    assert.equal(find(checks, 'postgres: peak RSS').met, true);
  });
});
