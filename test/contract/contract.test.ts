import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { generateOpenApiDocuments, generateSdl } from '../../src/contract-documents.ts';
import { diffSdl } from './graphql-diff.ts';
import { diffOpenApi, type ContractChange } from './openapi-diff.ts';
import { readOpenApiSnapshot, readSdlSnapshot } from './snapshots.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REFRESH = 'If the change is intended, refresh the snapshots with `npm run contract:update` and commit them.';

function report(changes: ContractChange[]): string {
  return changes
    .map((change) => `  ${change.breaking ? 'BREAKING' : 'note'}  ${change.where}: ${change.message}`)
    .join('\n');
}

/** Fails on breaking changes only; additions are printed as a note asking for a snapshot refresh. */
function assertCompatible(changes: ContractChange[], what: string, t: { diagnostic(message: string): void }): void {
  const breaking = changes.filter((change) => change.breaking);
  const notes = changes.filter((change) => !change.breaking);
  if (notes.length > 0)
    t.diagnostic(`${what}: ${notes.length} compatible change(s) not in the snapshot yet. ${REFRESH}\n${report(notes)}`);
  assert.equal(
    breaking.length,
    0,
    `${what} has breaking changes against the committed snapshot:\n${report(breaking)}\n${REFRESH}`,
  );
}

const clone = <T>(value: T): T => structuredClone(value);
const breakingOf = (changes: ContractChange[]) => changes.filter((change) => change.breaking);

describe('contract: OpenAPI documents against the committed snapshots', () => {
  let documents: Map<1 | 2, Json>;
  before(async () => {
    documents = (await generateOpenApiDocuments()) as Map<1 | 2, Json>;
  });

  for (const version of [1, 2] as const) {
    it(`v${version} has no breaking change`, (t) => {
      assertCompatible(diffOpenApi(readOpenApiSnapshot(version), documents.get(version)!), `OpenAPI v${version}`, t);
    });
  }

  it('fails when a response field is removed from a copy of the document', () => {
    const current = documents.get(2)!;
    const changed = clone(current);
    // The User component, which the operation references.
    const user = changed.components.schemas.User;
    delete user.properties.email;
    user.required = user.required.filter((name: string) => name !== 'email');
    const breaking = breakingOf(diffOpenApi(current, changed));
    // Every operation answering a User loses the field.
    assert.ok(
      breaking.some((change) => /^GET \/users\/\{userId\} 200\.email$/.test(change.where)),
      report(breaking),
    );
    assert.ok(
      breaking.every((change) => /200\.email$|201\.email$/.test(change.where) && /removed/.test(change.message)),
      report(breaking),
    );
  });

  it('fails on a removed path, a changed type, tightened validation and a new required input', () => {
    const current = documents.get(2)!;
    const removed = clone(current);
    delete removed.paths['/products/{productId}'];
    assert.ok(breakingOf(diffOpenApi(current, removed)).some((change) => change.message === 'operation removed'));

    const retyped = clone(current);
    retyped.components.schemas.Product.properties.price = { type: 'string' };
    assert.match(report(breakingOf(diffOpenApi(current, retyped))), /price: type changed number → string/);

    const tightened = clone(current);
    const body = tightened.paths['/users'].post.requestBody.content['application/json'].schema;
    body.properties.name.maxLength = 50;
    body.required.push('age');
    const changes = report(breakingOf(diffOpenApi(current, tightened)));
    assert.match(changes, /body\.name: maxLength 100 → 50/);
    assert.match(changes, /body\.age: now required/);

    const guarded = clone(current);
    guarded.paths['/products'].get.security = [{ bearerAuth: [] }];
    assert.match(report(breakingOf(diffOpenApi(current, guarded))), /now requires authentication/);
  });

  it('passes additions and relaxed validation as non-breaking', () => {
    const current = documents.get(2)!;
    const extended = clone(current);
    extended.paths['/extra'] = { get: { responses: { 200: { description: 'OK' } } } };
    extended.components.schemas.User.properties.nickname = { type: 'string' };
    extended.paths['/users'].post.requestBody.content['application/json'].schema.properties.name.maxLength = 500;
    const changes = diffOpenApi(current, extended);
    assert.deepEqual(breakingOf(changes), []);
    assert.ok(changes.length >= 3, report(changes));
  });

  it('sees the v1 → v2 product rename as the breaking change it is', () => {
    const changes = breakingOf(diffOpenApi(documents.get(1)!, documents.get(2)!));
    assert.ok(changes.length > 0);
    assert.ok(
      changes.some((change) => /created_at$/.test(change.where) && /removed/.test(change.message)),
      report(changes),
    );
  });
});

describe('contract: GraphQL SDL against the committed snapshot (GraphQL Inspector)', () => {
  it('has no breaking change', async (t) => {
    assertCompatible(await diffSdl(readSdlSnapshot(), generateSdl()), 'GraphQL SDL', t);
  });

  it('fails when a field is removed from a copy of the schema', async () => {
    const sdl = generateSdl();
    const changed = sdl.replace(/(type User \{[^}]*?)\n\s+email: String!/, '$1');
    assert.notEqual(changed, sdl);
    const breaking = breakingOf(await diffSdl(sdl, changed));
    assert.equal(breaking.length, 1, report(breaking));
    assert.match(breaking[0]!.message, /email.*removed/i);
  });

  it('passes an added field as non-breaking', async () => {
    const sdl = generateSdl();
    const changed = sdl.replace('type User {', 'type User {\n  nickname: String');
    const changes = await diffSdl(sdl, changed);
    assert.deepEqual(breakingOf(changes), []);
    assert.equal(changes.length, 1);
  });
});
