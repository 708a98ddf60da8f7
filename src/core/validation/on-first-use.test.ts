import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidateFunction } from 'ajv';
import { bodyAjv, textAjv } from './ajv.ts';
import { onFirstUse, validatorOnFirstUse } from './on-first-use.ts';
import { compileRequestValidator } from './request-validator.ts';

describe('a function compiled on first use', () => {
  it('compiles nothing until its first call, then once', () => {
    let compilations = 0;
    const serialize = onFirstUse(() => {
      compilations += 1;
      return (data: { id: number }) => JSON.stringify(data);
    });
    assert.equal(compilations, 0);
    assert.equal(serialize({ id: 1 }), '{"id":1}');
    assert.equal(serialize({ id: 2 }), '{"id":2}');
    assert.equal(compilations, 1);
  });

  it('answers as the compiled validator and carries its errors, reset by a valid call', () => {
    let compilations = 0;
    const validate = validatorOnFirstUse(() => {
      compilations += 1;
      return bodyAjv.compile({ type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] });
    });
    assert.equal(compilations, 0);
    assert.ok(validate.schemaEnv, 'Fastify passes the data context to a function with schemaEnv');
    assert.equal(validate({ age: 'x' }), false);
    assert.equal(validate.errors?.[0]?.instancePath, '/age');
    assert.equal(validate({ age: 42 }), true);
    assert.equal(validate.errors, null);
    assert.equal(compilations, 1);
  });

  it('hands the data context on, so a root value is coerced in place as by the compiled validator', () => {
    const validate = validatorOnFirstUse(() => textAjv.compile({ type: 'integer' }));
    const parent: Record<string, unknown> = { id: '42' };
    assert.equal(
      validate(parent.id, {
        instancePath: '',
        parentData: parent,
        parentDataProperty: 'id',
        rootData: parent,
        dynamicAnchors: {},
      }),
      true,
    );
    assert.equal(parent.id, 42);
  });

  it("is how Fastify's validators are built: registering a route compiles nothing", () => {
    // A schema Ajv cannot compile shows when it is compiled: not at registration, at the first request.
    const broken = { type: 'object', properties: { name: { $ref: '#/$defs/missing' } } };
    const validate = compileRequestValidator({ schema: broken, httpPart: 'body' }) as ValidateFunction;
    assert.throws(() => validate({ name: 'x' }), /can't resolve reference/);
    const valid = compileRequestValidator({
      schema: { type: 'object', properties: { name: { type: 'string' } } },
      httpPart: 'body',
    });
    assert.equal(
      (valid as ValidateFunction)({ name: 'a\u0000b' }),
      false,
      'the storable-text rule applies once compiled',
    );
  });
});
