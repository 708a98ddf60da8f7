import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchema } from 'graphql';
import { createCompiledOperations } from './compiled-operations.ts';
import { createDocumentParser } from './document-parser.ts';

const schema = buildSchema('type Query { hello(name: String!, times: Int): String }');
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
    assert.deepEqual(
      compiled.variableErrors({})?.map((e) => e.message),
      ['Variable "$name" of required type "String!" was not provided.'],
    );
  });

  it('words refused variables as graphql-js does, and checks nothing for an operation without variables', () => {
    const operations = createCompiledOperations(() => schema, createDocumentParser());
    const COUNT = 'query Count($n: Int!, $name: String!) { hello(name: $name, times: $n) }';
    for (const text of [COUNT, '{ hello(name: "x") }']) {
      operations.executed(text, undefined);
      operations.executed(text, undefined);
    }
    const compiled = operations.get(COUNT, undefined)!;
    assert.deepEqual(
      compiled.variableErrors({ n: 2 ** 40, name: { deep: {} } })?.map((e) => e.message),
      [
        'Variable "$n" got invalid value 1099511627776; Int cannot represent non 32-bit signed integer value: 1099511627776',
        'Variable "$name" got invalid value { deep: {} }; String cannot represent a non string value: { deep: {} }',
      ],
    );
    assert.equal(operations.get('{ hello(name: "x") }', undefined)!.variableErrors({ any: 'thing' }), undefined);
  });

  it('keeps what its texts weigh within its byte budget, oldest text out first, and never one over the budget', () => {
    const parser = createDocumentParser();
    const texts = [1, 2, 3, 4].map((n) => `{ hello(name: "${n}") }`);
    const operations = createCompiledOperations(() => schema, parser, parser.weight(texts[0]!) * 3);
    const twice = (text: string) => {
      operations.executed(text, undefined);
      operations.executed(text, undefined);
    };
    for (const text of texts.slice(0, 3)) twice(text);
    assert.ok(
      texts.slice(0, 3).every((text) => operations.get(text, undefined)),
      'three texts fit',
    );
    twice(texts[3]!);
    assert.equal(operations.get(texts[0]!, undefined), undefined, 'the oldest text made room');
    assert.ok(texts.slice(1).every((text) => operations.get(text, undefined)));
    const large = `{ hello(name: "${'x'.repeat(parser.weight(texts[0]!) * 3)}") }`;
    twice(large);
    assert.equal(operations.get(large, undefined), undefined, 'a text over the budget is never kept');
    assert.ok(operations.get(texts[3]!, undefined), 'and pushes nothing out');
  });
});
