/**
 * `bench/ab-compare.ts` starts both processes of a pair with environments of one size
 * (bench/suite/alternate.ts, `padEnvironment`): the size alone moves a process's speed by a few per cent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { padEnvironment } from '../../bench/suite/alternate.ts';

/** What a child's environment takes on its stack: `NAME=value` and a NUL each (counted here, not by the module). */
const bytes = (env: Record<string, string | undefined>) =>
  Object.entries(env).reduce(
    (sum, [name, value]) => (value === undefined ? sum : sum + Buffer.byteLength(`${name}=${value}`) + 1),
    0,
  );

describe('bench: A/B environments', () => {
  const parent = { PATH: '/usr/bin', LOG_LEVEL: 'info', UNSET: undefined };

  it('pads the whole environment a child gets to the size asked, whatever each side adds or overrides', () => {
    const sides: Record<string, string>[] = [
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', X: 'é' },
      { LOG_LEVEL: 'warn', PORT: '43210' },
    ];
    for (const total of [200, 4095]) {
      for (const side of sides) {
        const padded = padEnvironment(parent, side, total);
        assert.equal(bytes({ ...parent, ...padded }), total);
        for (const [name, value] of Object.entries(side)) assert.equal(padded[name], value);
      }
    }
  });

  it('refuses a size the environment does not fit in', () => {
    assert.throws(() => padEnvironment(parent, { BIG: 'x'.repeat(500) }, 200), /does not fit/);
  });
});
