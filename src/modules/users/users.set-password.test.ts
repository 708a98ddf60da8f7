import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { TEST_ADMIN, startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const CLI = fileURLToPath(new URL('../../cli.ts', import.meta.url));

/** `content-service set-password <args>` as a real process, `input` piped to its standard input. */
async function setPassword(databaseUrl: string, args: string[], input: string) {
  const child = spawn(process.execPath, [CLI, 'set-password', ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A child that stops reading early (an oversized input) closes the pipe: not an error of the test.
  child.stdin.on('error', () => {});
  child.stdin.end(input);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout: stdout.trim(), stderr: stderr.trim() };
}

for (const dialect of DIALECTS) {
  describe(`content-service set-password (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const signIn = (email: string, password: string) =>
      t.request('POST', '/api/v2/auth/token', { body: { email, password } });

    it('sets the password read with --password-stdin, and the new one signs in through the API', async () => {
      const before = await feedEnd(t);
      const result = await setPassword(
        t.config.DATABASE_URL,
        ['--email', 'Admin@Example.com', '--password-stdin'],
        'a-brand-new-password\n',
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, 'Password set for admin@example.com');
      const token = await signIn(TEST_ADMIN.email, 'a-brand-new-password');
      assert.equal(token.status, 200);
      assert.ok(token.body.access_token);
      assert.equal((await signIn(TEST_ADMIN.email, TEST_ADMIN.password)).status, 401);
      // Any change to a user is an event (DECISIONS §10), written with the change.
      const events = await eventsAfter(t, before, 1);
      assert.deepEqual(
        events.map((event) => [event.type, (event.data as { email?: string }).email]),
        [['user.updated', TEST_ADMIN.email]],
      );
    });

    it('reads piped standard input without the flag too', async () => {
      const { id } = await t.createUser({ email: `piped-${Date.now()}@example.com`, password: 'the-old-password' });
      const email = (await t.request('GET', `/api/v2/users/${id}`, { token: t.adminToken })).body.email as string;
      const result = await setPassword(t.config.DATABASE_URL, ['--email', email], 'with spaces inside ok');
      assert.equal(result.code, 0, result.stderr);
      assert.equal((await signIn(email, 'with spaces inside ok')).status, 200);
    });

    it('refuses a password shorter than the API allows and changes nothing', async () => {
      const { id } = await t.createUser({ email: `short-${Date.now()}@example.com`, password: 'the-old-password' });
      const email = (await t.request('GET', `/api/v2/users/${id}`, { token: t.adminToken })).body.email as string;
      const result = await setPassword(t.config.DATABASE_URL, ['--email', email, '--password-stdin'], 'short\n');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^The new password must be 8 to 200 characters long \(got 5\); nothing changed$/);
      assert.equal((await signIn(email, 'the-old-password')).status, 200);
    });

    it('reads no further than 64 KiB of an oversized input, refuses it and changes nothing', async () => {
      const { id } = await t.createUser({ email: `huge-${Date.now()}@example.com`, password: 'the-old-password' });
      const email = (await t.request('GET', `/api/v2/users/${id}`, { token: t.adminToken })).body.email as string;
      const result = await setPassword(t.config.DATABASE_URL, ['--email', email], 'x'.repeat(8 * 1024 * 1024));
      assert.equal(result.code, 1);
      assert.match(result.stderr, /must be 8 to 200 characters long \(got 65536\); nothing changed$/);
      assert.equal((await signIn(email, 'the-old-password')).status, 200);
    });

    it('names an unknown e-mail with a non-zero exit, and a missing --email as a usage error', async () => {
      const unknown = await setPassword(t.config.DATABASE_URL, ['--email', 'nobody@example.com'], 'long-enough-1\n');
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr, 'No user with email nobody@example.com; nothing changed');
      const missing = await setPassword(t.config.DATABASE_URL, [], 'long-enough-1\n');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^set-password needs --email E/);
    });
  });
}
