import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ifMatchMatches, ifNoneMatchMatches, strongEtag } from './caching.ts';

describe('ETag comparison', () => {
  const etag = strongEtag('{"id":1}');

  it('makes a strong, quoted validator that changes with the bytes', () => {
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(strongEtag('{"id":1}'), etag);
    assert.notEqual(strongEtag('{"id":2}'), etag);
  });

  it('If-None-Match matches weakly, in lists, and with *', () => {
    assert.equal(ifNoneMatchMatches(etag, etag), true);
    assert.equal(ifNoneMatchMatches(`W/${etag}`, etag), true);
    assert.equal(ifNoneMatchMatches(`"a", ${etag}`, etag), true);
    assert.equal(ifNoneMatchMatches('*', etag), true);
    assert.equal(ifNoneMatchMatches('"other"', etag), false);
    assert.equal(ifNoneMatchMatches(undefined, etag), false);
  });

  it('If-Match matches strongly only', () => {
    assert.equal(ifMatchMatches(etag, etag), true);
    assert.equal(ifMatchMatches(`"a",${etag}`, etag), true);
    assert.equal(ifMatchMatches('*', etag), true);
    assert.equal(ifMatchMatches(`W/${etag}`, etag), false);
    assert.equal(ifMatchMatches('"other"', etag), false);
  });
});
