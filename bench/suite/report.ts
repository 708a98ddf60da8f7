import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import {
  ceilingOf,
  checkTargets,
  rpsRatio as pairedRatio,
  type ResultRow,
  type SoakResult,
  type TargetCheck,
} from './targets.ts';
import { bareRpsRatio, checkIssue37, tail } from './targets-37.ts';

export interface RunFacts {
  started: Date;
  finished: Date;
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
  settings: string;
  seeding: string[];
}

const BEGIN = '<!-- bench:begin (written by `npm run bench`; edit outside these markers) -->';
const END = '<!-- bench:end -->';
const MB = 1024 * 1024;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * What a row is compared to: a PostgreSQL row to the reference's row of the same workload (when it
 * ran), every other row to the ceiling. Returns the base row and its name.
 */
function baseOf(row: ResultRow, rows: ResultRow[]): [ResultRow | undefined, string] {
  const reference =
    row.dialect === 'postgres' ? rows.find((r) => r.dialect === 'reference' && r.workload === row.workload) : undefined;
  return reference ? [reference, 'reference'] : [ceilingOf(rows, row), 'ceiling'];
}

/** The bare stack's row of a PostgreSQL row's workload, when it ran. */
const bareOf = (row: ResultRow, rows: ResultRow[]) =>
  row.dialect === 'postgres' ? rows.find((r) => r.dialect === 'bare' && r.workload === row.workload) : undefined;

const ratio = (n: number, base: number | undefined, digits: number) => (base ? `${(n / base).toFixed(digits)}` : '–');
const micros = (n: number | undefined) => (n === undefined ? '–' : fmt(n));

function table(rows: ResultRow[]): string[] {
  const lines = [
    '| database | workload | req/s | req/s ratio | p50 ms | p99 ms | p99 ratio | p99/p50 | req/s × bare | p99 × bare | errors | peak RSS MB | server CPU µs/req | PostgreSQL CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const name =
      row.dialect === 'ceiling'
        ? 'raw node:http'
        : row.dialect === 'reference'
          ? 'reference (Fastify + pg)'
          : row.dialect === 'bare'
            ? 'bare (Fastify + pg)'
            : row.dialect;
    const title = `${row.workload} ${row.title}${row.note ? ` (${row.note})` : ''}`;
    const [base, baseName] = baseOf(row, rows);
    const rpsRatio =
      row.dialect === 'ceiling' ? '1' : `${base ? pairedRatio(row, base).toFixed(3) : '–'} × ${baseName}`;
    const p99Ratio = baseName === 'reference' ? `${ratio(row.p99, base?.p99, 2)} × reference` : '–';
    const bare = bareOf(row, rows);
    const vsBare = bare ? `| ${bareRpsRatio(row, bare).toFixed(3)} | ${ratio(row.p99, bare.p99, 2)} |` : '| – | – |';
    lines.push(
      `| ${name} | ${title} | ${fmt(row.rps)} | ${rpsRatio} | ${row.p50} | ${row.p99} | ${p99Ratio} | ${row.p50 > 0 ? tail(row).toFixed(1) : '–'} ${vsBare} ${row.errors} | ${(row.rssPeak / MB).toFixed(0)} | ${Math.round(row.cpuUs)} | ${micros(row.pgCpuUs)} |`,
    );
  }
  return lines;
}

/**
 * One line per PostgreSQL workload the reference, and one per workload the bare stack, also ran: the
 * service against it (for the console).
 */
export function ratioLines(rows: ResultRow[]): string[] {
  const line = (row: ResultRow, base: ResultRow, name: string, rpsRatio: number) =>
    `  postgres ${row.workload} vs ${name}: req/s ${rpsRatio.toFixed(2)}× (${fmt(row.rps)} / ${fmt(base.rps)}), p99 ${ratio(row.p99, base.p99, 2)}× (${row.p99} / ${base.p99} ms), ` +
    `server CPU ${fmt(row.cpuUs)} / ${fmt(base.cpuUs)} µs/req, PostgreSQL CPU ${micros(row.pgCpuUs)} / ${micros(base.pgCpuUs)} µs/req`;
  return rows.flatMap((row) => {
    if (row.dialect !== 'postgres') return [];
    const [base, baseName] = baseOf(row, rows);
    const bare = bareOf(row, rows);
    return [
      ...(base && baseName === 'reference' ? [line(row, base, 'reference', pairedRatio(row, base))] : []),
      ...(bare ? [line(row, bare, 'bare', bareRpsRatio(row, bare))] : []),
    ];
  });
}

function targetTable(title: string, checks: TargetCheck[]): string[] {
  return [
    `### ${title}`,
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...checks.map((c) => `| ${c.target} | ${c.measured} | ${c.met === null ? '–' : c.met ? 'met' : '**not met**'} |`),
  ];
}

/** The generated section: when, where, how, the table and the targets. */
export function renderResults(rows: ResultRow[], soaks: SoakResult[], facts: RunFacts): string {
  const ceilingRps = rows.find((r) => r.dialect === 'ceiling' && r.workload === '–')?.rps ?? Number.NaN;
  const lines = [
    BEGIN,
    `## Latest run: ${facts.started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB; Node ${process.version}`,
    `- load average (1, 5, 15 min) before: ${facts.loadBefore.join(', ')}; after: ${facts.loadAfter.join(', ')}`,
    `- ${facts.settings}`,
    `- run took ${Math.round((facts.finished.getTime() - facts.started.getTime()) / 1000)} s; ${facts.seeding.join('; ')}`,
    '',
    ...table(rows),
    '',
    'Figures are medians over the repeated runs; errors are summed over them (connection errors, timeouts,',
    'and any status the workload does not expect: non-2xx, or anything but 304 for W7). The ratios of a',
    'PostgreSQL row are to the hand-written reference (Fastify + pg + Mercurius loaders, bench/reference/) on',
    'the same workload in this run, loaded in turn with the service run by run (p99 ratio above 1: slower);',
    'SQLite W1 and W4 are compared to the raw node:http ceiling loaded in turn with them (its own rows), every',
    'other row to the ceiling measured before and after. Measured in turn, the req/s ratio is the median over',
    "the runs of each run's ratio to the base's run just after it. On PostgreSQL W1–W4 the bare stack (bench/bare/: Fastify + pg +",
    'Mercurius, no token, log, totals or links) is loaded in turn too: `req/s × bare` and `p99 × bare` are the',
    "service's figures against it, and p99/p50 is each row's tail. Server CPU µs/req is the server process's user + system CPU time over the",
    'measured runs divided by the answers: it moves little with machine load. PostgreSQL CPU µs/req is the',
    "same for the PostgreSQL processes (the bench database's backends and the shared background processes).",
    '',
  ];
  if (soaks.length) {
    lines.push(
      '### Soak (W8 for a long run, RSS sampled)',
      '',
      '| database | seconds | req/s | p99 ms | errors | RSS MB over time |',
      '|---|---:|---:|---:|---:|---|',
    );
    for (const soak of soaks) {
      const samples = soak.rss.map(([t, rss]) => `${t}s ${(rss / MB).toFixed(0)}`).join(', ');
      lines.push(
        `| ${soak.dialect} | ${soak.seconds} | ${fmt(soak.rps)} | ${soak.p99} | ${soak.errors} | ${samples} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    ...targetTable('Targets of issue 20', checkTargets(rows, ceilingRps, soaks)),
    '',
    ...targetTable('Targets of issue 37', checkIssue37(rows)),
  );
  lines.push('', END);
  return lines.join('\n');
}

/** Replaces the generated section of `file`, keeping everything written around it. */
export function writeResults(file: string, section: string): void {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = existing.indexOf(BEGIN);
  const end = existing.indexOf(END);
  const text =
    start >= 0 && end > start
      ? existing.slice(0, start) + section + existing.slice(end + END.length)
      : `${existing || '# Benchmark results (`npm run bench`)\n\n'}${section}\n`;
  writeFileSync(file, text);
}
