import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oncePerSchema } from './once-per-schema.ts';

interface Route {
  schema: unknown;
  httpPart?: string;
  url?: string;
}

function counted() {
  const calls: Route[] = [];
  const compile = oncePerSchema(
    (route: Route) => {
      calls.push(route);
      return () => calls.length;
    },
    (route) => route.httpPart,
  );
  return { calls, compile };
}

describe('a schema compiled once', () => {
  it('hands every route with the same schema object the same compiled function', () => {
    const { calls, compile } = counted();
    const schema = { type: 'object' };
    const first = compile({ schema, httpPart: 'body', url: '/api/users' });
    const second = compile({ schema, httpPart: 'body', url: '/api/v2/users' });
    assert.equal(first, second);
    assert.equal(calls.length, 1);
  });

  it('compiles the same schema again for another part, and an equal but distinct object again', () => {
    const { calls, compile } = counted();
    const schema = { type: 'object' };
    const body = compile({ schema, httpPart: 'body' });
    const query = compile({ schema, httpPart: 'querystring' });
    const copy = compile({ schema: { type: 'object' }, httpPart: 'body' });
    assert.notEqual(body, query);
    assert.notEqual(body, copy);
    assert.equal(calls.length, 3);
  });

  it('compiles a schema that is not an object each time (nothing to key it by)', () => {
    const { calls, compile } = counted();
    compile({ schema: true });
    compile({ schema: true });
    assert.equal(calls.length, 2);
  });
});
