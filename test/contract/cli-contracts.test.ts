import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

const execFileAsync = promisify(execFile);
/** A document is about a megabyte, execFile's default output limit: room for it to grow. */
const run = (file: string, args: string[]) => execFileAsync(file, args, { maxBuffer: 16 * 1024 * 1024 });
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

describe('cli openapi and cli schema', () => {
  it('prints the v1 document by default and v2 with --version 2', { timeout: 60_000 }, async () => {
    const v1 = JSON.parse((await run(process.execPath, [CLI, 'openapi'])).stdout);
    assert.equal(v1.openapi, '3.1.0');
    assert.equal(v1.info.version, '1.0.0');
    assert.equal(v1.servers[0].url, '/api/v1');
    const v2 = JSON.parse((await run(process.execPath, [CLI, 'openapi', '--version', '2'])).stdout);
    assert.equal(v2.info.version, '2.0.0');
    assert.ok(v2.paths['/users']);
  });

  it('refuses an unknown version with exit code 2', { timeout: 60_000 }, async () => {
    const failure = await run(process.execPath, [CLI, 'openapi', '--version', '3']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal('code' in failure ? failure.code : 0, 2);
    assert.match('stderr' in failure ? failure.stderr : '', /--version must be 1 or 2/);
  });

  it('prints the GraphQL SDL', { timeout: 60_000 }, async () => {
    const { stdout } = await run(process.execPath, [CLI, 'schema']);
    assert.match(stdout, /type Query \{/);
    assert.match(stdout, /type User \{/);
  });
});
