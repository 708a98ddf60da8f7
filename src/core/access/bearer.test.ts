import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerTokenOf, MALFORMED } from './bearer.ts';

describe('reading the bearer token of an Authorization header', () => {
  it('answers the token of "Bearer <token68>", whatever the case of the scheme and the spaces around', () => {
    assert.equal(bearerTokenOf('Bearer abc.DEF-ghi_jk~l+m/n=='), 'abc.DEF-ghi_jk~l+m/n==');
    assert.equal(bearerTokenOf('bearer   abc  '), 'abc');
    assert.equal(bearerTokenOf('BEARER abc'), 'abc');
  });

  it('answers undefined without a header', () => {
    assert.equal(bearerTokenOf(undefined), undefined);
  });

  it('answers MALFORMED for another scheme, a missing token, or a character outside token68', () => {
    for (const header of [
      '',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer ',
      'Bearerabc',
      'Bearer\tabc',
      'Bearer a b',
      'Bearer a$b',
      'Bearer a=b',
      'Bearer é',
    ]) {
      assert.equal(bearerTokenOf(header), MALFORMED, JSON.stringify(header));
    }
  });
});
