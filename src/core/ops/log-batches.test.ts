import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchedDestination } from './log-batches.ts';

const dir = mkdtempSync(join(tmpdir(), 'log-batches-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `log-${(files += 1)}.txt`);
const line = (n: number) => `{"n":${n},"msg":"${'x'.repeat(90)}"}\n`;

/** Waits until `path` holds `length` characters (the asynchronous write has landed), or fails after 2 s. */
async function contentOf(path: string, length: number): Promise<string> {
  for (let waited = 0; waited < 2000; waited += 10) {
    const text = readFileSync(path, 'utf8');
    if (text.length >= length) return text;
    await sleep(10);
  }
  return readFileSync(path, 'utf8');
}

describe('log lines written in batches', () => {
  it('writes a full batch at once, every line whole and in order', async () => {
    const path = newFile();
    const fd = openSync(path, 'w');
    const destination = batchedDestination(fd, { batchChars: 1000, maxDelayMs: 60_000 });
    const lines = Array.from({ length: 10 }, (_, i) => line(i));
    for (const each of lines) destination.write(each); // 10 × 101 characters: past 1,000 on the tenth
    assert.equal(await contentOf(path, lines.join('').length), lines.join(''));
    destination.flushSync();
    closeSync(fd);
  });

  it('keeps a partial batch back until the delay has passed, then writes it', async () => {
    const path = newFile();
    const fd = openSync(path, 'w');
    const destination = batchedDestination(fd, { batchChars: 1_000_000, maxDelayMs: 150 });
    destination.write(line(1));
    destination.write(line(2));
    await sleep(40);
    assert.equal(readFileSync(path, 'utf8'), '', 'a partial batch waits');
    assert.equal(await contentOf(path, 2 * line(1).length), line(1) + line(2));
    destination.flushSync();
    closeSync(fd);
  });

  /** Runs a process that logs `count` lines through a destination, then calls process.exit at once; returns them. */
  function linesOfExitingProcess(count: number): { i?: number; msg: string }[] {
    const path = newFile();
    const script = `
      import { openSync } from 'node:fs';
      import { pino } from 'pino';
      import { batchedDestination } from ${JSON.stringify(new URL('./log-batches.ts', import.meta.url).href)};
      const log = pino({ base: null, timestamp: false }, batchedDestination(openSync(${JSON.stringify(path)}, 'w'), { batchChars: 4096, maxDelayMs: 60_000 }));
      for (let i = 0; i < ${count}; i += 1) log.info({ i }, 'line');
      log.info('Shutdown complete');
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: process.cwd(),
      encoding: 'utf8',
    });
    assert.equal(child.status, 0, child.stderr);
    return readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { i?: number; msg: string });
  }

  for (const count of [2, 1000]) {
    it(`writes every gathered line when the process exits right after logging (${count} lines, ${count < 100 ? 'no batch written yet' : 'a write in flight'})`, () => {
      const lines = linesOfExitingProcess(count);
      assert.equal(lines.length, count + 1);
      assert.deepEqual(
        lines.slice(0, count).map((l) => l.i),
        Array.from({ length: count }, (_, i) => i),
      );
      assert.equal(lines.at(-1)!.msg, 'Shutdown complete');
    });
  }
});
