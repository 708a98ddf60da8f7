import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { AccessLogController } from './access-log.ts';
import './fastify-types.ts';

/** An app with the real access log written into `lines`, and routes that set what the app's hooks would. */
async function appWithLog(lines: Record<string, unknown>[]) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, logController: new AccessLogController() });
  app.decorateRequest('principal', null);
  app.decorateRequest('graphqlOperation', null);
  app.post('/api/auth/token', async () => ({ access_token: 'x' }));
  app.get('/api/users/:id', async (request) => {
    request.principal = { userId: 7, role: 'user' };
    return {};
  });
  app.post('/graphql', async (request) => {
    request.principal = { userId: 7, role: 'user' };
    request.graphqlOperation = { name: 'ListPosts', type: 'query', outcome: 'success' };
    return {};
  });
  app.post('/graphql-refused', async (request) => {
    request.graphqlOperation = { name: '(none)', type: '(none)', outcome: 'rejected' };
    return {};
  });
  await app.ready();
  return app;
}

describe('the access log', () => {
  it("adds the caller's id and the GraphQL operation to the one line per request, never the token or a password", async () => {
    const lines: Record<string, unknown>[] = [];
    const app = await appWithLog(lines);
    const token = 'eyJhbGciOiJIUzI1NiJ9.secret-token.signature';
    await app.inject({ method: 'GET', url: '/api/users/7', headers: { authorization: `Bearer ${token}` } });
    await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${token}` },
      payload: { query: 'query ListPosts { posts { id } }' },
    });
    await app.inject({ method: 'POST', url: '/graphql-refused', payload: { query: '{' } });
    await app.inject({
      method: 'POST',
      url: '/api/auth/token',
      payload: { email: 'a@example.com', password: 'hunter2-password' },
    });
    await app.close();

    const completed = lines.filter((line) => line.msg === 'request completed');
    assert.equal(completed.length, 4);
    const [rest, graphql, refused, signIn] = completed as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(rest!.userId, 7);
    assert.equal(rest!.operation, undefined);
    assert.equal(rest!.req.url, '/api/users/7');
    assert.equal(rest!.res.statusCode, 200);
    assert.equal(graphql!.userId, 7);
    assert.equal(graphql!.operation, 'ListPosts');
    assert.equal(graphql!.operationType, 'query');
    assert.equal(refused!.operation, undefined, 'no name for a document that never passed validation');
    assert.equal(signIn!.userId, undefined);
    const text = JSON.stringify(lines);
    assert.doesNotMatch(text, /secret-token|hunter2|authorization/i);
  });
});
