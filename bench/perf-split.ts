/**
 * Where the CPU of an answer goes, A against B, from the `perf` recordings of `bench/ab-compare.ts --perf DIR`:
 * `node bench/perf-split.ts DIR [--top 8]`. Each on-CPU sample is put in one part by the function it was
 * in (the kernel's work split by whether it was waking the reader of a socket the server wrote to, which
 * on loopback is the load generator or the collector), and the parts' shares are turned into µs an answer
 * with the CPU per answer ab-compare measured. What a V8 CPU profile does not show: the kernel, the
 * garbage collector, V8's builtins and its other threads. Needs Linux perf (Debian's `linux-perf`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { functionName, parseSamples, partOf } from './suite/perf-parts.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '8' } },
});
const dir = positionals[0];
if (!dir) throw new Error('usage: node bench/perf-split.ts DIR (written by ab-compare.ts --perf DIR)');
const top = Number(values.top);
if (!(Number.isInteger(top) && top >= 0)) throw new Error('--top takes a whole number, 0 or more');

interface Answers {
  workload: string;
  a: { cpuUs: number; rps: number };
  b: { cpuUs: number; rps: number };
}
const answers = JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8')) as Answers;

interface Split {
  samples: number;
  parts: Map<string, number>;
  functions: Map<string, number>;
  threads: Map<string, number>;
}

/** The samples of `file` (`perf script`), counted by part, innermost function and thread. */
function split(file: string): Split {
  const run = spawnSync('perf', ['script', '-i', file, '-F', 'comm,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (run.status !== 0) throw new Error(`perf script -i ${file}: ${run.stderr}`);
  const result: Split = { samples: 0, parts: new Map(), functions: new Map(), threads: new Map() };
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const sample of parseSamples(run.stdout)) {
    const part = partOf(sample);
    result.samples += 1;
    add(result.threads, sample.thread);
    add(result.parts, part);
    add(result.functions, `${part} | ${functionName(sample.frames[0]!.symbol)}`);
  }
  return result;
}

const a = split(join(dir, 'a.data'));
const b = split(join(dir, 'b.data'));
/** µs an answer of `count` samples out of `of`'s, given its CPU per answer. */
const us = (count: number | undefined, of: Split, cpuUs: number) => ((count ?? 0) / of.samples) * cpuUs;
const row = (label: string, x: number, y: number) =>
  `${label.padEnd(34)} ${x.toFixed(2).padStart(7)} ${y.toFixed(2).padStart(7)} ${(y - x).toFixed(2).padStart(7)}`;

console.log(
  `${answers.workload}: A ${Math.round(answers.a.rps)} answers/s, ${answers.a.cpuUs.toFixed(1)} µs CPU an answer; ` +
    `B ${Math.round(answers.b.rps)}/s, ${answers.b.cpuUs.toFixed(1)} µs (${a.samples} and ${b.samples} samples)`,
);
console.log(`${'µs an answer'.padEnd(34)} ${'A'.padStart(7)} ${'B'.padStart(7)} ${'B - A'.padStart(7)}`);
const parts = [...new Set([...a.parts.keys(), ...b.parts.keys()])];
const delta = (key: string, x: Map<string, number>, y: Map<string, number>) =>
  us(y.get(key), b, answers.b.cpuUs) - us(x.get(key), a, answers.a.cpuUs);
parts.sort((p, q) => delta(q, a.parts, b.parts) - delta(p, a.parts, b.parts));
for (const part of parts) {
  console.log(row(part, us(a.parts.get(part), a, answers.a.cpuUs), us(b.parts.get(part), b, answers.b.cpuUs)));
}
console.log('\nby thread');
for (const thread of new Set([...a.threads.keys(), ...b.threads.keys()])) {
  console.log(
    row(thread, us(a.threads.get(thread), a, answers.a.cpuUs), us(b.threads.get(thread), b, answers.b.cpuUs)),
  );
}
console.log(`\nthe ${top} functions that grew most in each part (B - A, µs an answer)`);
const functions = [...new Set([...a.functions.keys(), ...b.functions.keys()])];
for (const part of parts) {
  const grown = functions
    .filter((f) => f.startsWith(`${part} | `))
    .sort((f, g) => delta(g, a.functions, b.functions) - delta(f, a.functions, b.functions))
    .slice(0, top);
  console.log(`${part}:`);
  for (const f of grown) {
    console.log(
      `  ${delta(f, a.functions, b.functions).toFixed(2).padStart(6)}  ${f.slice(part.length + 3, part.length + 123)}`,
    );
  }
}
