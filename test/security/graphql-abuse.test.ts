import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import fc from 'fast-check';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { FUZZ_SEED, runs } from './fuzz.test-support.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/**
 * Hostile GraphQL documents (issue 16): each is answered within a bound of server time and never
 * blocks the event loop past it, for anonymous and signed-in callers. The server runs in this
 * process, so the event-loop delay and the CPU time measured here are the server's (plus this
 * client's small share). CPU time does not grow when other processes crowd the machine; wall time
 * and event-loop delay do, so a document over the bound on those is tried again (up to five times)
 * and judged by its best attempt: an algorithm that expands a document exponentially is over the
 * bound on every attempt and on CPU time too. Every attempt is a new text (a comment line of its
 * own), as an attacker's would be: no cached verdict may answer for the guards.
 */
const ANSWER_BOUND_MS = 100;
const REFUSAL_BOUND_MS = 50;
const ATTEMPTS = 5;

const ENV = { ...SECURITY_TEST_ENV, RATE_LIMIT_MAX: '100000000', REPORT_WORKER: 'false' };

/** `levels` fragments, each spreading the one below `width` times: width^levels fields from a few hundred bytes. */
export function fragmentFanOut(levels: number, width = 2): string {
  let document = 'fragment F0 on User { id name }\n';
  for (let i = 1; i < levels; i += 1) document += `fragment F${i} on User { ${`...F${i - 1} `.repeat(width)}}\n`;
  return `${document}{ user(id: 1) { ...F${levels - 1} } }`;
}

/** As long as the fan-out, but each fragment spreads the one below once; refused for an unknown field. */
const fragmentChain = (levels: number) => fragmentFanOut(levels, 1).replace('{ id name }', '{ id nameless }');
const deepNesting = (levels: number) => `${'{ a '.repeat(levels)}${'}'.repeat(levels)}`;
const deepInput = (levels: number) => `{ users(limit: ${'['.repeat(levels)}1${']'.repeat(levels)}) { id } }`;
const manyAliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: user(id: 1) { id }`).join(' ')} }`;
const hugeList = (n: number) => `{ users(limit: [${Array.from({ length: n }, (_, i) => i).join(',')}]) { id } }`;
const manyDirectives = (n: number) => `{ user(id: 1) { id ${'@include(if: true) '.repeat(n)}} }`;
const inlineFanOut = (levels: number) => {
  let selection = 'id name';
  for (let i = 0; i < levels; i += 1) selection = `... on User { ${selection} } ... on User { ${selection} }`;
  return `{ user(id: 1) { ${selection} } }`;
};
const cycle = (n: number) =>
  `${Array.from({ length: n }, (_, i) => `fragment C${i} on User { posts { author { ...C${(i + 1) % n} } } }`).join('\n')}\n{ user(id: 1) { ...C0 } }`;

/** Every kind of hostile document, sized from harmless to far past every limit. */
const hostileDocument = fc.oneof(
  fc.record({
    kind: fc.constant('fragment fan-out'),
    size: fc.integer({ min: 1, max: 40 }),
    width: fc.integer({ min: 2, max: 4 }),
  }),
  fc.record({ kind: fc.constant('inline fan-out'), size: fc.integer({ min: 1, max: 12 }), width: fc.constant(2) }),
  fc.record({ kind: fc.constant('deep nesting'), size: fc.integer({ min: 1, max: 5000 }), width: fc.constant(0) }),
  fc.record({ kind: fc.constant('deep input'), size: fc.integer({ min: 1, max: 5000 }), width: fc.constant(0) }),
  fc.record({ kind: fc.constant('aliases'), size: fc.integer({ min: 1, max: 3000 }), width: fc.constant(0) }),
  fc.record({ kind: fc.constant('huge list'), size: fc.integer({ min: 1, max: 50_000 }), width: fc.constant(0) }),
  fc.record({ kind: fc.constant('directives'), size: fc.integer({ min: 1, max: 3000 }), width: fc.constant(0) }),
  fc.record({ kind: fc.constant('fragment cycle'), size: fc.integer({ min: 1, max: 500 }), width: fc.constant(0) }),
);

function documentOf({ kind, size, width }: { kind: string; size: number; width: number }): string {
  switch (kind) {
    case 'fragment fan-out':
      return fragmentFanOut(size, width);
    case 'inline fan-out':
      return inlineFanOut(size);
    case 'deep nesting':
      return deepNesting(size);
    case 'deep input':
      return deepInput(size);
    case 'aliases':
      return manyAliases(size);
    case 'huge list':
      return hugeList(size);
    case 'directives':
      return manyDirectives(size);
    default:
      return cycle(size);
  }
}

interface Timed {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  ms: number;
  /** Longest event-loop delay seen while the request was answered. */
  blockedMs: number;
  /** CPU time this process spent meanwhile (user + system). */
  cpuMs: number;
}

/** `fresh`: the text made new with a comment line (see above). */
async function timedPost(t: TestServer, query: string, token: string | undefined, fresh = true): Promise<Timed> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: fresh ? `${query}\n# ${randomUUID()}` : query }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const spent = process.cpuUsage(cpu);
  histogram.disable();
  return {
    status: response.status,
    body: JSON.parse(text),
    ms,
    blockedMs: histogram.max / 1e6,
    cpuMs: (spent.user + spent.system) / 1000,
  };
}

/**
 * The bound on an attempt's wall time and event-loop delay. This process can only block its own loop
 * with work it does, and that work is CPU time: when other processes crowd the machine, the loop
 * also waits for the CPU the system gives elsewhere, which is not the server's doing. So a wall time
 * or delay over the bound counts only if this attempt also spent a fair share of it on the CPU: a
 * quarter on a quiet machine, less when more processes are runnable than there are cores (the
 * one-minute load average per core; a CI run beside a benchmark had 10 per core, and a 17 ms answer
 * then took 150 ms of wall time). The CPU bound itself never moves: an expanding guard spends its
 * time on the CPU and fails either way.
 */
const wallFactor = () => Math.max(4, (2 * loadavg()[0]!) / availableParallelism());
const wallBound = (answer: Timed, boundMs: number) => Math.max(boundMs, wallFactor() * answer.cpuMs);
const withinBound = (answer: Timed, boundMs: number) =>
  answer.cpuMs < boundMs && answer.ms < wallBound(answer, boundMs) && answer.blockedMs < wallBound(answer, boundMs);

function assertWithinBound(answer: Timed, boundMs: number, label: string): void {
  assert.ok(answer.cpuMs < boundMs, `${label}: ${answer.cpuMs.toFixed(1)} ms of CPU`);
  assert.ok(
    answer.ms < wallBound(answer, boundMs),
    `${label}: answered in ${answer.ms.toFixed(1)} ms (${answer.cpuMs.toFixed(1)} ms of CPU)`,
  );
  assert.ok(
    answer.blockedMs < wallBound(answer, boundMs),
    `${label}: event loop blocked ${answer.blockedMs.toFixed(1)} ms (${answer.cpuMs.toFixed(1)} ms of CPU)`,
  );
}

/** The best of up to five attempts (see above). */
async function bestOf(t: TestServer, query: string, token: string | undefined, boundMs: number): Promise<Timed> {
  const worst = (answer: Timed) => Math.max(answer.ms, answer.blockedMs, answer.cpuMs);
  let best: Timed | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const answer = await timedPost(t, query, token);
    if (!best || worst(answer) < worst(best)) best = answer;
    // Within the bound, or hopelessly past it on the CPU (an expanding guard): no further attempt.
    if (withinBound(best, boundMs) || answer.cpuMs > 10 * boundMs) break;
  }
  return best!;
}

const codes = (body: { errors?: { extensions?: { code?: string } }[] }) =>
  (body.errors ?? []).map((e) => e.extensions?.code);

for (const dialect of DIALECTS) {
  describe(`GraphQL abuse (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let callers: { name: string; token: string | undefined }[];
    before(async () => {
      t = await startTestServer(dialect, ENV);
      const user = await t.createUser();
      callers = [
        { name: 'anonymous', token: undefined },
        { name: 'signed in', token: user.token },
        { name: 'admin', token: t.adminToken },
      ];
      // The first GraphQL request compiles the schema's validation and execution paths: not an attack's cost.
      await timedPost(t, '{ __typename }', undefined);
    });
    after(() => t?.close());

    it('refuses the 30-level fragment fan-out (2^30 fields) in under 50 ms, anonymous and signed in', async () => {
      for (const { name, token } of callers) {
        const answer = await bestOf(t, fragmentFanOut(30), token, REFUSAL_BOUND_MS);
        assert.equal(answer.status, 200, name);
        assert.equal(answer.body.data, undefined, name);
        assert.equal(answer.body.errors[0].extensions.guard, 'fields', JSON.stringify(answer.body));
        assert.equal(answer.body.errors[0].extensions.actual, 2 ** 30 + 1);
        assertWithinBound(answer, REFUSAL_BOUND_MS, name);
      }
    });

    it('answers /healthz within 50 ms while the fan-out is sent 20 times in parallel', async (test) => {
      /** The slowest of 5 /healthz probes sent while 20 copies of `query` are in flight. */
      const slowestProbe = async (query: () => string, expected: string[]) => {
        const posts = Array.from({ length: 20 }, (_, i) =>
          timedPost(t, query(), i % 2 ? callers[1]!.token : undefined),
        );
        const probes = Array.from({ length: 5 }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * 2));
          const started = performance.now();
          const response = await fetch(`${t.url}/healthz`);
          await response.text();
          assert.equal(response.status, 200);
          return performance.now() - started;
        });
        const [answers, probeTimes] = await Promise.all([Promise.all(posts), Promise.all(probes)]);
        for (const answer of answers) assert.deepEqual(codes(answer.body), expected);
        return Math.max(...probeTimes);
      };
      // The control: the same probes behind 20 documents of the same size and shape that spread each
      // fragment once (and are refused by graphql's own validation), at the same moment: what this
      // machine needs anyway to parse and validate 20 such documents beside 5 probes in one process.
      // The bound is 50 ms, or twice that control when a crowded machine cannot meet 50 ms even for
      // those; a guard that expands the fan-out is seconds behind either.
      let attack = Infinity;
      let control = Infinity;
      for (let round = 0; round < ATTEMPTS && attack >= Math.max(REFUSAL_BOUND_MS, 2 * control); round += 1) {
        control = Math.min(control, await slowestProbe(() => fragmentChain(30), ['GRAPHQL_VALIDATION_FAILED']));
        attack = Math.min(attack, await slowestProbe(() => fragmentFanOut(30), ['GRAPHQL_VALIDATION_FAILED']));
      }
      test.diagnostic(
        `slowest /healthz: ${attack.toFixed(1)} ms behind 20 fan-outs, ${control.toFixed(1)} ms behind 20 fragment chains of the same size`,
      );
      assert.ok(
        attack < Math.max(REFUSAL_BOUND_MS, 2 * control),
        `/healthz took ${attack.toFixed(1)} ms (control ${control.toFixed(1)} ms)`,
      );
    });

    it('answers every generated hostile document within 100 ms without blocking the event loop, with no internal error', async () => {
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(hostileDocument, fc.integer({ min: 0, max: 2 }), async (spec, callerIndex) => {
          const { name, token } = callers[callerIndex]!;
          const query = documentOf(spec);
          const answer = await bestOf(t, query, token, ANSWER_BOUND_MS);
          const label = `${spec.kind} ${spec.size}×${spec.width}, ${name}, ${query.length} bytes`;
          seen.set(spec.kind, (seen.get(spec.kind) ?? 0) + 1);
          assert.ok(answer.status === 200 || answer.status === 413, `${label}: ${answer.status}`);
          assert.ok(
            !codes(answer.body).includes('INTERNAL_SERVER_ERROR'),
            `${label}: ${JSON.stringify(answer.body).slice(0, 300)}`,
          );
          assertWithinBound(answer, ANSWER_BOUND_MS, label);
        }),
        { seed: FUZZ_SEED, numRuns: runs(60) },
      );
      // The generator reached every kind of document.
      assert.equal(seen.size, 8, JSON.stringify([...seen]));
    });

    it('refuses a document nested past the parser’s stack as a parse failure, not an internal error', async () => {
      for (const query of [deepNesting(3000), deepInput(3000)]) {
        const answer = await timedPost(t, query, undefined);
        assert.deepEqual(codes(answer.body), ['GRAPHQL_PARSE_FAILED'], JSON.stringify(answer.body));
        assert.match(answer.body.errors[0].message, /nests deeper than 100 levels/);
      }
    });

    it('reads the query only as GraphQL text, never as a JSON-encoded syntax tree', async () => {
      const tree = JSON.stringify({
        kind: 'Document',
        definitions: [
          {
            kind: 'OperationDefinition',
            operation: 'query',
            selectionSet: {
              kind: 'SelectionSet',
              selections: [{ kind: 'Field', name: { kind: 'Name', value: '__typename' } }],
            },
          },
        ],
      });
      for (const query of [tree, 'true', '[1]', 'null', '{"kind":"Document"}']) {
        const answer = await timedPost(t, query, undefined, false);
        assert.deepEqual(codes(answer.body), ['GRAPHQL_PARSE_FAILED'], `${query}: ${JSON.stringify(answer.body)}`);
      }
    });
  });

  describe(`GraphQL with introspection off (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { ...ENV, GRAPHQL_INTROSPECTION: 'false' });
    });
    after(() => t?.close());

    it('does not suggest field, argument or enum names ("Did you mean ...?")', async () => {
      const { token } = await t.createUser();
      for (const query of [
        '{ user(id: 1) { nme } }',
        '{ users(limt: 1) { id } }',
        '{ users(role: ADMN) { id } }',
        '{ usr(id: 1) { id } }',
      ]) {
        const answer = await timedPost(t, query, token);
        assert.deepEqual(codes(answer.body), ['GRAPHQL_VALIDATION_FAILED'], JSON.stringify(answer.body));
        assert.doesNotMatch(answer.body.errors[0].message, /Did you mean/, query);
      }
      const variable = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query: 'mutation ($u: CreateUserInput!) { createUser(input: $u) { id } }',
          variables: { u: { nme: 'x', email: 'x@example.com' } },
        }),
      });
      const body = (await variable.json()) as { errors: { message: string }[] };
      assert.ok(body.errors.length > 0);
      for (const error of body.errors) assert.doesNotMatch(error.message, /Did you mean/);
    });
  });
}
