import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { generateOpenApiDocuments } from '../../src/contract-documents.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

/** The generated documents pass Redocly CLI's `recommended` rules (see .redocly.yaml) with no error or warning. */
describe('OpenAPI documents lint clean with Redocly CLI', () => {
  let dir: string;
  const files: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    for (const [version, document] of await generateOpenApiDocuments()) {
      const file = join(dir, `openapi.v${version}.json`);
      writeFileSync(file, JSON.stringify(document));
      files.push(file);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const lint = async (paths: string[]) => {
    const result = await run(
      process.execPath,
      [REDOCLY, 'lint', '--config', join(ROOT, '.redocly.yaml'), '--format', 'stylish', ...paths],
      {
        cwd: ROOT,
        // No telemetry and no update check: the linter must work offline.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
    ).catch((error: { stdout: string; stderr: string; code: number }) => error);
    return { code: 'code' in result ? result.code : 0, output: `${result.stdout}\n${result.stderr}` };
  };

  it('reports no problems for v1 and v2', { timeout: 120_000 }, async () => {
    const { code, output } = await lint(files);
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /You have \d+ (warning|error)/, output);
    assert.match(output, /Your API descriptions? (is|are) valid/);
  });

  it('does fail on a broken document (the check is not vacuous)', { timeout: 120_000 }, async () => {
    const broken = JSON.parse(readFileSync(files[0]!, 'utf8'));
    const [firstPath] = Object.keys(broken.paths);
    for (const operation of Object.values(broken.paths[firstPath!]) as { responses?: unknown; summary?: string }[]) {
      delete operation.responses;
      delete operation.summary;
    }
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));
    const { code, output } = await lint([file]);
    assert.notEqual(code, 0, output);
  });

  it('lints the webhooks too: a webhook header with no place is an error', { timeout: 120_000 }, async () => {
    const broken = JSON.parse(readFileSync(files[1]!, 'utf8'));
    const [first] = Object.values(broken.webhooks) as { post: { parameters: { in: string }[] } }[];
    first!.post.parameters[0]!.in = 'body';
    const file = join(dir, 'broken-webhook.json');
    writeFileSync(file, JSON.stringify(broken));
    const { code, output } = await lint([file]);
    assert.notEqual(code, 0, output);
    assert.match(output, /struct .*`in` can be one of/, output);
  });
});
