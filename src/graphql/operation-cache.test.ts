import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchema } from 'graphql';
import { retainedBytes } from './document-parser.ts';
import { createOperationCache, type PreparedOperation, type RefusedOperation } from './operation-cache.ts';

const schema = buildSchema('type Query { hello(name: String!, times: Int): String }');
schema.getQueryType()!.getFields().hello!.resolve = (_root, args: { name: string }) => `hello ${args.name}`;
const HELLO = 'query Hello($name: String!) { hello(name: $name) }';

const prepared = (value: PreparedOperation | RefusedOperation): PreparedOperation => {
  assert.ok('execute' in value, JSON.stringify(value));
  return value;
};
const refused = (value: PreparedOperation | RefusedOperation) => {
  assert.ok('errors' in value);
  return value.errors.map((e) => e.message);
};

describe('the operation cache (one entry per text: parse, validation, compiled operations)', () => {
  it('prepares an operation once per text and name, and runs it compiled', async () => {
    const cache = createOperationCache({ schema, rules: [] });
    const hello = prepared(cache.prepare(HELLO, 'Hello'));
    assert.equal(cache.prepare(HELLO, 'Hello'), hello, 'the second run takes the cached operation');
    assert.equal(cache.prepare(HELLO, undefined), cache.prepare(HELLO, undefined), 'no name: its own entry');
    assert.deepEqual(await hello.execute({}, {}, { name: 'you' }), { data: { hello: 'hello you' } });
    assert.deepEqual(
      hello.variableErrors({})?.map((e) => e.message),
      ['Variable "$name" of required type "String!" was not provided.'],
    );
  });

  it("refuses syntax, validation and operation selection with graphql-js' words, and keeps the verdict", () => {
    const cache = createOperationCache({ schema, rules: [] });
    assert.match(refused(cache.prepare('{ hello(', undefined))[0]!, /^Syntax Error/);
    assert.match(refused(cache.prepare('{ nope }', undefined))[0]!, /Cannot query field "nope"/);
    assert.deepEqual(refused(cache.prepare(HELLO, 'Other')), ['Unknown operation named "Other".']);
    assert.deepEqual(refused(cache.prepare(`${HELLO} query B { __typename }`, undefined)), [
      'Must provide operation name if query contains multiple operations.',
    ]);
    const bad = cache.prepare('{ nope }', undefined);
    assert.equal(cache.prepare('{ nope }', undefined), bad);
  });

  it('keeps texts within its byte budget, oldest out first, and never one larger than the budget', () => {
    const small = '{ hello(name: "a") }';
    const budget = retainedBytes(small, 7) * 2 * 3;
    const cache = createOperationCache({ schema, rules: [], budget });
    const first = cache.prepare(small, undefined);
    assert.equal(cache.prepare(small, undefined), first, 'a repeated text is prepared once');
    const large = `{ hello(name: "a") }\n# ${'x'.repeat(budget)}`;
    assert.notEqual(
      cache.prepare(large, undefined),
      cache.prepare(large, undefined),
      'a text over the budget is never kept',
    );
    for (const n of [1, 2, 3]) cache.prepare(`{ hello(name: "${n}") }`, undefined);
    assert.notEqual(cache.prepare(small, undefined), first, 'the oldest text made room for newer ones');
  });
});
