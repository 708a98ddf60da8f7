import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GraphQLError } from 'graphql';
import { AppError } from '../core/errors/app-error.ts';
import { formatGraphQLError } from './errors.ts';
import { negotiateResponseType } from './media-types.ts';

const at = { path: ['users', 0, 'posts'] as const };

function raised(original: Error): GraphQLError {
  return new GraphQLError(original.message, { originalError: original, path: [...at.path] });
}

describe('GraphQL error mapping', () => {
  it('maps each application error code to its GraphQL code, keeping the path', () => {
    const cases: [AppError, string][] = [
      [AppError.validation([{ field: 'email', message: 'must match format "email"' }]), 'BAD_USER_INPUT'],
      [AppError.unauthorized(), 'UNAUTHENTICATED'],
      [AppError.forbidden(), 'FORBIDDEN'],
      [AppError.notFound('User 1'), 'NOT_FOUND'],
      [AppError.conflict('taken'), 'CONFLICT'],
      // State conflicts keep their own codes (DECISIONS §15).
      [new AppError('INVALID_STATE', 'Cannot pay: the order is paid'), 'INVALID_STATE'],
      [new AppError('OUT_OF_STOCK', 'Not enough stock'), 'OUT_OF_STOCK'],
      [new AppError('IDEMPOTENCY_KEY_REUSED', 'This key was used with a different request'), 'IDEMPOTENCY_KEY_REUSED'],
    ];
    for (const [error, code] of cases) {
      const json = formatGraphQLError(raised(error), () => assert.fail('nothing unexpected'));
      assert.equal(json.extensions.code, code);
      assert.equal(json.message, error.message);
      assert.deepEqual(json.path, at.path);
    }
  });

  it('carries validation details in extensions.details', () => {
    const details = [{ field: 'age', message: 'must be >= 0' }];
    const json = formatGraphQLError(raised(AppError.validation(details)), () => {});
    assert.deepEqual(json.extensions, { code: 'BAD_USER_INPUT', details });
  });

  it('masks anything unexpected as INTERNAL_SERVER_ERROR with no internals, and logs the original', () => {
    const logged: unknown[] = [];
    const secret = new Error('relation "users" does not exist at SELECT * FROM users WHERE password_hash = ...');
    const json = formatGraphQLError(raised(secret), (e) => logged.push(e));
    assert.deepEqual(json, {
      message: 'Internal server error',
      path: at.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    assert.deepEqual(logged, [secret]);
    const server = formatGraphQLError(raised(new AppError('INTERNAL', 'pool exhausted')), () => {});
    assert.equal(server.extensions.code, 'INTERNAL_SERVER_ERROR');
  });

  it('names parse, validation and variable errors raised before execution', () => {
    const code = (message: string) => formatGraphQLError(new GraphQLError(message), () => {}, true).extensions.code;
    assert.equal(code('Syntax Error: Expected Name, found <EOF>.'), 'GRAPHQL_PARSE_FAILED');
    assert.equal(code('Cannot query field "x" on type "User".'), 'GRAPHQL_VALIDATION_FAILED');
    assert.equal(code('Variable "$id" of required type "ID!" was not provided.'), 'BAD_USER_INPUT');
    assert.equal(code('Variable "$id" got invalid value {}; ID cannot represent value: {}'), 'BAD_USER_INPUT');
  });
});

describe('GraphQL response media type', () => {
  it('follows Accept, defaulting to application/json', () => {
    assert.equal(negotiateResponseType(undefined), 'application/json');
    assert.equal(negotiateResponseType('*/*'), 'application/json');
    assert.equal(negotiateResponseType('application/json'), 'application/json');
    assert.equal(negotiateResponseType('application/graphql-response+json'), 'application/graphql-response+json');
    assert.equal(
      negotiateResponseType('application/graphql-response+json, application/json;q=0.9'),
      'application/graphql-response+json',
    );
    assert.equal(
      negotiateResponseType('application/json, application/graphql-response+json'),
      'application/graphql-response+json',
    );
    assert.equal(negotiateResponseType('application/graphql-response+json;q=0.1, */*'), 'application/json');
    assert.equal(negotiateResponseType('text/html, application/*;q=0.8'), 'application/json');
    assert.equal(negotiateResponseType('text/html'), null);
  });
});
