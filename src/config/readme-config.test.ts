import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EnvSchema } from './env-schema.ts';

describe('README configuration table', () => {
  it('documents every environment variable the service reads', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    );
    const missing = Object.keys(EnvSchema.properties).filter((name) => !section.includes(`\`${name}\``));
    assert.deepEqual(missing, [], `add these to the README's configuration table: ${missing.join(', ')}`);
  });
});
