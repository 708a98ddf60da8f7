import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';
import { talliedCounter, talliedHistogram } from './tallies.ts';

type Labels = 'route' | 'status';
const counterOptions = (registry: Registry): CounterConfiguration<Labels> => ({
  name: 'requests',
  help: 'h',
  labelNames: ['route', 'status'],
  registers: [registry],
});
const histogramOptions = (registry: Registry): HistogramConfiguration<'route'> => ({
  name: 'duration',
  help: 'h',
  labelNames: ['route'],
  buckets: [0.005, 0.05, 0.5],
  registers: [registry],
});

/** The same traffic into plain prom-client metrics and into tallied ones. */
function twoRegistries() {
  const direct = new Registry();
  const counter = new Counter(counterOptions(direct));
  const histogram = new Histogram(histogramOptions(direct));

  const tallied = new Registry();
  const counts = talliedCounter(counterOptions(tallied));
  const times = talliedHistogram(histogramOptions(tallied));

  return {
    direct,
    tallied,
    request(route: string, status: number, seconds: number) {
      counter.inc({ route, status });
      if (Number.isFinite(seconds)) histogram.observe({ route }, seconds); // prom-client throws on the rest
      counts.cell(`${route} ${status}`, () => ({ route, status })).add();
      times.cell(route, () => ({ route })).observe(seconds);
    },
  };
}

describe('tallies in front of prom-client metrics', () => {
  it('give a scrape exactly what the metrics fed one by one give, batches past their size included', async () => {
    const { direct, tallied, request } = twoRegistries();
    for (let i = 0; i < 1000; i++) request(i % 3 === 0 ? '/a' : '/b', i % 7 === 0 ? 404 : 200, (i % 11) / 100);
    assert.deepEqual(await tallied.getMetricsAsJSON(), await direct.getMetricsAsJSON());
    assert.equal(await tallied.metrics(), await direct.metrics());
    // Counted again after a scrape: nothing is counted twice or lost.
    for (let i = 0; i < 70; i++) request('/c', 201, 0.001);
    assert.equal(await tallied.metrics(), await direct.metrics());
    assert.match(await tallied.metrics(), /requests\{route="\/c",status="201"\} 70/);
  });

  it('leave out a value that is not a finite number instead of failing the scrape', async () => {
    const { tallied, request } = twoRegistries();
    request('/a', 200, Number.NaN);
    request('/a', 200, 0.01);
    const text = await tallied.metrics();
    assert.match(text, /duration_count\{route="\/a"\} 1/);
    assert.match(text, /requests\{route="\/a",status="200"\} 2/);
  });
});
