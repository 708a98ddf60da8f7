import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { checkTargets, type ResultRow, type SoakResult } from './targets.ts';

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

function table(rows: ResultRow[], ceilingRps: number): string[] {
  const lines = [
    '| database | workload | req/s | × ceiling | p50 ms | p99 ms | errors | peak RSS MB | server CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const name = row.dialect === 'ceiling' ? 'raw node:http' : row.dialect;
    const title = `${row.workload} ${row.title}${row.note ? ` (${row.note})` : ''}`;
    lines.push(
      `| ${name} | ${title} | ${fmt(row.rps)} | ${(row.rps / ceilingRps).toFixed(3)} | ${row.p50} | ${row.p99} | ${row.errors} | ${(row.rssPeak / MB).toFixed(0)} | ${Math.round(row.cpuUs)} |`,
    );
  }
  return lines;
}

/** The generated section: when, where, how, the table and the targets. */
export function renderResults(rows: ResultRow[], soaks: SoakResult[], facts: RunFacts): string {
  const ceilingRps = rows.find((r) => r.dialect === 'ceiling')?.rps ?? Number.NaN;
  const lines = [
    BEGIN,
    `## Latest run: ${facts.started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB; Node ${process.version}`,
    `- load average (1, 5, 15 min) before: ${facts.loadBefore.join(', ')}; after: ${facts.loadAfter.join(', ')}`,
    `- ${facts.settings}`,
    `- run took ${Math.round((facts.finished.getTime() - facts.started.getTime()) / 1000)} s; ${facts.seeding.join('; ')}`,
    '',
    ...table(rows, ceilingRps),
    '',
    'Figures are medians over the repeated runs; errors are summed over them (connection errors, timeouts,',
    'and any status the workload does not expect: non-2xx, or anything but 304 for W7). × ceiling is the',
    'ratio to the raw node:http server measured in this run. Server CPU µs/req is the server process\'s',
    'user + system CPU time over the measured runs divided by the answers: it moves little with machine load.',
    '',
  ];
  if (soaks.length) {
    lines.push('### Soak (W8 for a long run, RSS sampled)', '', '| database | seconds | req/s | p99 ms | errors | RSS MB over time |', '|---|---:|---:|---:|---:|---|');
    for (const soak of soaks) {
      const samples = soak.rss.map(([t, rss]) => `${t}s ${(rss / MB).toFixed(0)}`).join(', ');
      lines.push(`| ${soak.dialect} | ${soak.seconds} | ${fmt(soak.rps)} | ${soak.p99} | ${soak.errors} | ${samples} |`);
    }
    lines.push('');
  }
  lines.push('### Targets of issue 9', '', '| target | measured | met |', '|---|---|---|');
  for (const check of checkTargets(rows, ceilingRps, soaks)) {
    lines.push(`| ${check.target} | ${check.measured} | ${check.met === null ? '–' : check.met ? 'met' : '**not met**'} |`);
  }
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
