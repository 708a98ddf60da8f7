import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';

/** The ratio of `OTEL_TRACES_SAMPLER_ARG`: a number from 0 to 1, else 1 (the specification's default). */
function ratioOf(argument: string | undefined): number {
  const ratio = argument === undefined || argument.trim() === '' ? Number.NaN : Number(argument);
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
}

/** The parent-based samplers made here: their delegates for a local parent are the SDK's defaults. */
const parentBased = new WeakSet<Sampler>();

/** The samplers made here that keep every root span, with nothing added to it (always on, at the root). */
const everyRoot = new WeakSet<Sampler>();

function parentBasedOn(root: Sampler): Sampler {
  const sampler = new ParentBasedSampler({ root });
  parentBased.add(sampler);
  if (root instanceof AlwaysOnSampler) everyRoot.add(sampler);
  return sampler;
}

/**
 * Whether `sampler` answers a span with no parent by `AlwaysOnSampler`'s answer (record and sample, no
 * attributes, no trace state): `always_on` and `parentbased_always_on` (the default) of `samplerFromEnv`,
 * so the tracer can skip asking it for a root span (lean-tracer.ts), answering exactly as it would.
 */
export function samplesEveryRoot(sampler: Sampler): boolean {
  return everyRoot.has(sampler);
}

/**
 * Whether `sampler` decides a span under a local parent by the parent's own decision alone: sampled,
 * `AlwaysOnSampler`'s answer (record and sample, no attributes, the parent's trace state); not sampled,
 * `AlwaysOffSampler`'s. True of the `parentbased_*` samplers of `samplerFromEnv` (the default among
 * them), whose local-parent delegates are those two, so the tracer can skip asking it
 * (lean-tracer.ts), answering exactly as it would.
 */
export function followsLocalParent(sampler: Sampler): boolean {
  return parentBased.has(sampler);
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` names (with `OTEL_TRACES_SAMPLER_ARG` for the ratio), from the SDK's
 * own samplers; unset or unknown: `parentbased_always_on`, the specification's default.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv = process.env): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(ratioOf(env.OTEL_TRACES_SAMPLER_ARG));
  switch (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()) {
    case 'always_on': {
      const sampler = new AlwaysOnSampler();
      everyRoot.add(sampler);
      return sampler;
    }
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return parentBasedOn(new AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBasedOn(ratio());
    default:
      return parentBasedOn(new AlwaysOnSampler());
  }
}
