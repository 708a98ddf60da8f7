import type { ApiVersion } from '../http/versioning.ts';

/** What each tag groups; a tag missing here reads `Operations on <tag>`. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Bearer tokens for a user (`POST .../auth/token`)',
  users: 'Users: sign-up, reads, updates, email verification and promotion',
  posts: 'Posts, per user and as one cursor-paged feed',
  comments: 'Comments on posts',
  likes: 'Likes on comments',
  avatars: 'User avatars (uploaded images or generated SVG)',
  products: 'The product catalogue: public reads, admin writes',
  orders: 'Orders and their state machine (pay, cancel, refund), receipts',
  customers: 'Users seen as customers: order counts and totals',
  reports: 'Report jobs generated in the background',
};

/** The document's `tags`: each tag used by its operations, with its description. */
export function describeTags(tags: Iterable<string>): { name: string; description: string }[] {
  return [...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations on ${name}` }));
}

/** The document's `info.description`: how versions are chosen, the error envelope, v1's sunset. */
export function describeVersion(version: ApiVersion, v1Sunset: string): string {
  const lines = [
    `REST API of content-service, version ${version}. Generated from the route schemas that validate requests.`,
    '',
    `Paths below are relative to the server URL \`/api/v${version}\`. Versions: pin one by path (\`/api/v1/...\`, \`/api/v2/...\`), or on plain \`/api/...\` by the`,
    '`API-Version: N` header, then `Accept: application/vnd.content.vN+json` (echoed in `Content-Type`), then',
    '`?version=N`; the default is 1. Every response says `API-Version`. v2 differs from v1 in two ways: products',
    'say `createdAt` (field, `fields` and `sort`, `-createdAt` too) instead of `created_at`; and a query parameter',
    'an operation does not declare is 422 `VALIDATION_ERROR` naming it (v1 drops it).',
    '',
    'Errors always use one envelope: `{"error": {"code", "message", "details"?}}`.',
  ];
  if (version === 1) {
    lines.push(
      '',
      `**Deprecated**: v1 is withdrawn on ${v1Sunset}; its responses carry \`Deprecation\`, \`Sunset\` and a \`Link\` to the same resource under \`/api/v2\`.`,
    );
  }
  return lines.join('\n');
}
