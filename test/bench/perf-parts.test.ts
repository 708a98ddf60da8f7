/**
 * `bench/perf-split.ts` reads `perf script` output into samples and puts each in a part of the machine
 * (bench/suite/perf-parts.ts); `ab-compare.ts --perf` leaves no V8 log behind (bench/suite/perf-record.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { functionName, parseSamples, partOf } from '../../bench/suite/perf-parts.ts';
import { removeV8Log } from '../../bench/suite/perf-record.ts';

/** Three samples as `perf script -F comm,ip,sym,dso` prints them (trimmed stacks). */
const SCRIPT = `MainThread 
\tffffffff81a1b2c3 _raw_spin_unlock_irqrestore ([kernel.kallsyms])
\tffffffff81a1b000 try_to_wake_up ([kernel.kallsyms])
\tffffffff81c00000 sock_def_readable ([kernel.kallsyms])
\tffffffff81c00100 tcp_v4_rcv ([kernel.kallsyms])
\t          108cae __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)

MainThread 
\tffffffff821faa94 __schedule ([kernel.kallsyms])
\tffffffff81732438 do_epoll_wait ([kernel.kallsyms])

        V8Worker  7894 
\t         1a2b3c4 v8::internal::ConcurrentMarking::RunMajor (/work/main/node_modules/node/bin/node)

MainThread 
\t    7f3fb0245724 JS:*'writeSpan file:///tmp/x/dist/core/tracing/otlp-protobuf.js:138:19 (/tmp/perf-7890.map)
\t         17611f5 Builtins_PromiseFulfillReactionJob (/work/main/node_modules/node/bin/node)

MainThread 
\t         17b4e5b Builtins_StringIndexOf (/work/main/node_modules/node/bin/node)

MainThread 
\t          a1b2c3 sqlite3VdbeExec (/work/main/node_modules/node/bin/node)
`;

describe('bench: perf split', () => {
  it('reads each sample with its thread and its frames, innermost first', () => {
    const samples = parseSamples(SCRIPT);
    assert.equal(samples.length, 6);
    assert.deepEqual(
      samples.map((s) => s.thread),
      ['MainThread', 'MainThread', 'V8Worker', 'MainThread', 'MainThread', 'MainThread'],
    );
    assert.deepEqual(samples[0]!.frames[0], { symbol: '_raw_spin_unlock_irqrestore', object: '[kernel.kallsyms]' });
    assert.equal(samples[0]!.frames.length, 5);
  });

  it("puts the kernel's waking of a socket's reader apart from the rest of the kernel, and each other part by its code", () => {
    assert.deepEqual(parseSamples(SCRIPT).map(partOf), [
      'kernel: waking a socket reader',
      'kernel: other',
      'garbage collector',
      'JavaScript',
      'V8 builtins',
      'SQLite',
    ]);
  });

  it("names a JavaScript function without V8's tier, so one function compares across two processes", () => {
    assert.equal(functionName("JS:*'writeSpan file:///a.js:1:2"), 'JS writeSpan file:///a.js:1:2');
    assert.equal(functionName("JS:~'writeSpan file:///a.js:1:2"), 'JS writeSpan file:///a.js:1:2');
    assert.equal(functionName('Builtins_LoadIC'), 'Builtins_LoadIC');
  });

  it("removes the V8 log a recorded server wrote, and no other process's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'perf-log-'));
    try {
      for (const name of ['isolate-0x1f-4242-v8.log', 'isolate-0x2e-14242-v8.log', 'package.json']) {
        writeFileSync(join(dir, name), '');
      }
      removeV8Log(dir, 4242);
      assert.deepEqual(readdirSync(dir).sort(), ['isolate-0x2e-14242-v8.log', 'package.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
