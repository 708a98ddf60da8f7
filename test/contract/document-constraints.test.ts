import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { constraintsOf, edgeValues, invalidValues, validValues, type ValueSchema } from '../support/schema-values.ts';

/**
 * Issue 75 (B2-B7): the published documents are as precise as the service. From both OpenAPI documents,
 * for every operation, every query parameter and top-level JSON body field that states a constraint
 * (enum, const, pattern, minimum/maximum, multipleOf, minLength; an array's items too): values the
 * document calls valid (generated from the schema, fast-check, fixed seed) must not get a 422 naming that
 * parameter or field, and values it calls invalid by each constraint must get one. Each value is sent
 * alone, as the administrator (who may use every filter), reads by query on `GET` operations, bodies on the
 * example body of their operation with the one field replaced, at ids that do not exist (validation comes
 * first; nothing of the data changes but creations).
 */

const SEED = 20261128;
const VALID_SAMPLES = 2;
const STREAMS = new Set(['GET /events/stream']);
/** Parameters that only apply beside another (a 422 says so otherwise): what each is sent with. */
const COMPANIONS: Readonly<Record<string, Record<string, string>>> = { highlight: { q: 'lamp' } };
const MISSING_ID = '999999';
/**
 * Fields naming another row: their valid values are the ids of rows that exist, which no schema states
 * (a 422 says `no user has id 7`); only the values the document calls invalid are sent.
 */
const REFERENCES = new Set(['customerId']);
const CONCURRENCY = 6;

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  schema?: ValueSchema & { $ref?: string };
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Json; example?: unknown }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Json> };
}

interface Case {
  /** What a failure names: the operation, the field or parameter, the value and what it should be. */
  what: string;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  field: string;
  valid: boolean;
}

function resolve(document: Document, schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return schema;
  return resolve(document, document.components.schemas?.[ref.replace('#/components/schemas/', '')]);
}

/** The field's schema with its items resolved, and whether it (or its items) states any constraint. */
function constrained(document: Document, raw: Json | undefined): ValueSchema | undefined {
  const schema = resolve(document, raw) as ValueSchema | undefined;
  if (!schema) return undefined;
  const items = resolve(document, schema.items as Json | undefined) as ValueSchema | undefined;
  const full = items ? { ...schema, items } : schema;
  return constraintsOf(full).length > 0 || (items && constraintsOf(items).length > 0) ? full : undefined;
}

const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number) => fc.sample(arbitrary, { seed: SEED, numRuns });

/** The cases of one value schema: valid samples and edges, then one invalid value per constraint it states. */
function valuesOf(schema: ValueSchema): { value: unknown; valid: boolean; by: string }[] {
  const valid = [...edgeValues(schema), ...sample(validValues(schema), VALID_SAMPLES)].map((value) => ({
    value,
    valid: true,
    by: 'valid',
  }));
  const invalid = Object.entries(invalidValues(schema)).flatMap(([by, arbitrary]) =>
    sample(arbitrary, 1).map((value) => ({ value, valid: false, by })),
  );
  return [...valid, ...invalid];
}

function casesOf(document: Document, seen: Set<string>): Case[] {
  const cases: Case[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const name = `${method.toUpperCase()} ${template}`;
      if (STREAMS.has(name)) continue;
      const once = (key: string) => !seen.has(`${name} ${key}`) && seen.add(`${name} ${key}`);
      for (const parameter of method === 'get' ? (operation.parameters ?? []) : []) {
        const schema = parameter.in === 'query' && constrained(document, parameter.schema as Json);
        if (!schema || !once(`?${parameter.name} ${JSON.stringify(schema)}`)) continue;
        const path = template.replace(/\{\w+\}/g, '1');
        for (const { value, valid, by } of valuesOf(schema)) {
          const query = { ...COMPANIONS[parameter.name], [parameter.name]: String(value) };
          const what = `${name} ?${parameter.name}=${JSON.stringify(String(value))} (${by})`;
          cases.push({ what, method: 'GET', path, query, field: parameter.name, valid });
        }
      }
      const json = operation.requestBody?.content?.['application/json'];
      const body = resolve(document, json?.schema);
      const example = json?.example;
      if (!body || !example || typeof example !== 'object' || Array.isArray(example)) continue;
      for (const [field, raw] of Object.entries((body.properties ?? {}) as Record<string, Json>)) {
        const schema = constrained(document, raw);
        if (!schema || !once(`${field} ${JSON.stringify(schema)}`)) continue;
        const path = template.replace(/\{\w+\}/g, MISSING_ID);
        for (const { value, valid, by } of valuesOf(schema)) {
          if (valid && REFERENCES.has(field)) continue;
          const what = `${name} {"${field}": ${JSON.stringify(value)}} (${by})`;
          cases.push({ what, method: method.toUpperCase(), path, body: { ...example, [field]: value }, field, valid });
        }
      }
    }
  }
  return cases;
}

for (const dialect of DIALECTS) {
  describe(`the documents' constraints are the service's (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { RATE_LIMIT_MAX: '100000000', RATE_LIMIT_AUTH_MAX: '100000000' });
    });
    after(() => t?.close());
    let seenInV2 = new Set<string>();

    /** Why a case's answer disagrees with the document, or nothing. */
    async function disagreement(version: number, c: Case): Promise<string | undefined> {
      const query = c.query ? `?${new URLSearchParams(c.query)}` : '';
      const res = await t.request(c.method, `/api/v${version}${c.path}${query}`, {
        token: t.adminToken,
        ...(c.body === undefined ? {} : { body: c.body }),
      });
      const details = (res.status === 422 ? (res.body?.error?.details ?? []) : []) as { field: string }[];
      const named = details.some(({ field }) => field === c.field || field.startsWith(`${c.field}.`));
      if (c.valid === !named) return undefined;
      return `v${version} ${c.what}: ${res.status} ${res.text.slice(0, 300)}`;
    }

    for (const version of [2, 1] as const) {
      it(`accepts what the v${version} document calls valid and refuses with 422 what it calls invalid, on every operation`, async () => {
        const document = (await t.request('GET', `/api/v${version}/openapi.json`)).body as Document;
        // v1 repeats most of v2: a parameter or field whose schema v2 already had is not sent again.
        const seen = version === 1 ? seenInV2 : new Set<string>();
        const cases = casesOf(document, seen);
        const failures: string[] = [];
        for (let i = 0; i < cases.length; i += CONCURRENCY) {
          const answers = await Promise.all(cases.slice(i, i + CONCURRENCY).map((c) => disagreement(version, c)));
          failures.push(...answers.filter((answer): answer is string => answer !== undefined));
        }
        assert.deepEqual(failures.slice(0, 25), [], `${failures.length} of ${cases.length} values`);
        if (version === 2) {
          assert.ok(cases.filter((c) => c.query).length >= 300, `${cases.length} cases`);
          assert.ok(cases.filter((c) => c.body !== undefined).length >= 40, `${cases.length} cases`);
        }
        seenInV2 = seen;
      });
    }
  });
}
