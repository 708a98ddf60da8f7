import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

describe('the start-up logger', () => {
  it('has written each line by the time the call returns (nothing held back while the app is built)', () => {
    // Two lines, then the process dies at once (SIGKILL: no exit handlers). Asynchronously written, the second
    // line waited in pino's buffer for the first write's callback, and a server building its app (a busy
    // event loop) printed "Server listening" before "Loaded the demo data" (test/reliability/concurrent-start).
    const script = [
      "import { createLogger } from './src/core/ops/logging.ts';",
      "const log = createLogger('info', false);",
      "log.info('first start-up line');",
      "log.info('second start-up line');",
      "process.kill(process.pid, 'SIGKILL');",
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const messages = child.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.deepEqual(messages, ['first start-up line', 'second start-up line']);
  });
});
