import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchema } from 'graphql';
import { createCompiledOperations } from './compiled-operations.ts';
import { createDocumentParser } from './document-parser.ts';

const schema = buildSchema('type Query { hello(name: String!): String }');
schema.getQueryType()!.getFields().hello!.resolve = (_root, args: { name: string }) => `hello ${args.name}`;
const HELLO = 'query Hello($name: String!) { hello(name: $name) }';

describe('compiled operations', () => {
  it('compiles an operation on its second execution, by text and operation name', async () => {
    const operations = createCompiledOperations(() => schema, createDocumentParser());
    operations.executed(HELLO, 'Hello');
    assert.equal(operations.get(HELLO, 'Hello'), undefined);
    operations.executed(HELLO, 'Hello');
    const compiled = operations.get(HELLO, 'Hello');
    assert.ok(compiled);
    assert.equal(operations.get(HELLO, undefined), undefined, 'another operation name is another entry');
    assert.deepEqual(await compiled.execute({}, { name: 'you' }), { data: { hello: 'hello you' } });
    assert.equal(compiled.variableErrors({ name: 'you' }), undefined);
    assert.deepEqual(compiled.variableErrors({})?.map((e) => e.message), ['Variable "$name" of required type "String!" was not provided.']);
  });

  it('forgets every operation when cleared, and when 1,024 texts have run', () => {
    const operations = createCompiledOperations(() => schema, createDocumentParser());
    const twice = (text: string) => {
      operations.executed(text, undefined);
      operations.executed(text, undefined);
    };
    twice(HELLO);
    operations.clear();
    assert.equal(operations.get(HELLO, undefined), undefined);
    twice(HELLO);
    for (let n = 1; n < 1024; n += 1) operations.executed(`{ hello(name: "${n}") }`, undefined);
    assert.ok(operations.get(HELLO, undefined), '1,024 entries are kept');
    operations.executed('{ hello(name: "one too many") }', undefined);
    assert.equal(operations.get(HELLO, undefined), undefined);
    twice('{ hello(name: "one too many") }');
    assert.ok(operations.get('{ hello(name: "one too many") }', undefined));
  });
});
