/**
 * How `bench/perf-split.ts` reads `perf script -F comm,ip,sym,dso`: each sample's thread and frames, and the
 * part of the machine its innermost frame belongs to.
 */

export interface Frame {
  symbol: string;
  /** The binary or map the frame's code is in: `[kernel.kallsyms]`, `/tmp/perf-PID.map` (JIT code), a path. */
  object: string;
}

export interface Sample {
  thread: string;
  /** Innermost first. */
  frames: Frame[];
}

/** The samples of `perf script -F comm,ip,sym,dso` output: blocks of a thread line and frame lines, a blank line apart. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    if (lines.length < 2) continue;
    const frames = lines.slice(1).map((line) => {
      const match = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
      return { symbol: match?.[1] ?? '[unknown]', object: match?.[2] ?? '' };
    });
    samples.push({ thread: lines[0]!.trim().replace(/\s+\d+$/, ''), frames });
  }
  return samples;
}

/** A function's name without V8's tier mark (`JS:*`, `JS:~`...), so one function compares across processes. */
export function functionName(symbol: string): string {
  return symbol.replace(/^JS:[*~^+]?'?/, 'JS ');
}

/**
 * The part of the machine a sample is in, by its innermost frame; the kernel's work split by whether the
 * sample was waking the reader of a socket (`sock_def_readable` on its stack: on loopback, the server's
 * write runs the reader's receive and wakes it).
 */
export function partOf(sample: Sample): string {
  const { symbol, object } = sample.frames[0]!;
  if (object.includes('kernel')) {
    return sample.frames.some((f) => f.symbol === 'sock_def_readable')
      ? 'kernel: waking a socket reader'
      : 'kernel: other';
  }
  if (object.startsWith('/tmp/perf-')) return 'JavaScript';
  if (/Scaveng|Marking|MarkCompact|Sweep|Evacuat|Compactor|Heap::|WriteBarrier|RememberedSet/.test(symbol)) {
    return 'garbage collector';
  }
  if (symbol.startsWith('Builtins_')) return 'V8 builtins';
  if (symbol.startsWith('sqlite3') || symbol.startsWith('pcache1') || symbol.startsWith('unix')) return 'SQLite';
  if (/compiler::|Maglev|Turbofan|Compile/.test(symbol)) return 'V8 compiler';
  if (object.includes('libc')) return 'libc';
  return 'V8 and Node (other)';
}
