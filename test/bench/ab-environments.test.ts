/**
 * `bench/ab-compare.ts` starts both processes of a pair with environments of one size
 * (bench/suite/alternate.ts, `equalEnvironments`): the size alone moves a process's speed by a few per cent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { equalEnvironments } from '../../bench/suite/alternate.ts';

const bytes = (env: Record<string, string>) =>
  Object.entries(env).reduce((sum, [name, value]) => sum + Buffer.byteLength(`${name}=${value}`) + 1, 0);

describe('bench: A/B environments', () => {
  it('pads both sides to one size, larger by the extra asked, keeping every setting', () => {
    const a = {};
    const b = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', X: 'é' };
    for (const extra of [0, 1, 4095]) {
      const padded = equalEnvironments(a, b, extra);
      assert.equal(bytes(padded.a), bytes(padded.b));
      assert.equal(bytes(padded.b), bytes(b) + bytes({ AB_PAD: '' }) + extra);
      assert.equal(padded.b.OTEL_EXPORTER_OTLP_ENDPOINT, b.OTEL_EXPORTER_OTLP_ENDPOINT);
      assert.equal(padded.b.X, 'é');
    }
  });
});
