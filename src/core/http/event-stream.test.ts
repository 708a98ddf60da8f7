import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptsEventStream } from './event-stream.ts';

describe('http: an Accept header asking for an event stream', () => {
  it('is one that lists text/event-stream, in any case and with parameters', () => {
    for (const accept of ['text/event-stream', 'application/json, Text/Event-Stream;q=0.5', 'TEXT/EVENT-STREAM,*/*'])
      assert.equal(acceptsEventStream(accept), true, accept);
  });

  it('is not one that only names it inside another type, nor a missing header', () => {
    for (const accept of [undefined, '', 'application/json', 'text/event-streams', 'x-text/event-stream'])
      assert.equal(acceptsEventStream(accept), false, String(accept));
  });
});
