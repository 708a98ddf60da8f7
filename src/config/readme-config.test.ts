import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EnvSchema } from './env-schema.ts';

describe('the configuration table (docs/CONFIGURATION.md)', () => {
  it('documents every environment variable the service reads, each in the first column of a row', () => {
    const page = readFileSync(new URL('../../docs/CONFIGURATION.md', import.meta.url), 'utf8');
    const named = new Set(
      page
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)),
    );
    const missing = Object.keys(EnvSchema.properties).filter((name) => !named.has(name));
    assert.deepEqual(missing, [], `add these to the table of docs/CONFIGURATION.md: ${missing.join(', ')}`);
  });
});
