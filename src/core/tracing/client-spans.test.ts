import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactedUrl } from './client-spans.ts';

describe("a client span's url.full", () => {
  it('keeps query names and redacts every value', () => {
    assert.equal(
      redactedUrl(new URL('https://hooks.example.com/in?token=s3cret&team=a&flag')),
      'https://hooks.example.com/in?token=REDACTED&team=REDACTED&flag=REDACTED',
    );
  });

  it('redacts credentials in the URL and drops the fragment', () => {
    assert.equal(
      redactedUrl(new URL('http://user:pass@127.0.0.1:8080/hook#part')),
      'http://REDACTED:REDACTED@127.0.0.1:8080/hook',
    );
  });

  it('leaves a URL without secrets as it is', () => {
    assert.equal(redactedUrl(new URL('https://example.com/webhooks/1')), 'https://example.com/webhooks/1');
  });
});
