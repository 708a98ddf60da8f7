import { defineListGrammar } from '../../core/querying/list-grammar.ts';

/**
 * What a client may filter and sort the users list by (DECISIONS §12), declared once: the REST query
 * schema, the parser and the SQL come from it (core/querying). `role` and `status` keep the seed's
 * equality parameters; `email` is personal data, so only administrators filter or sort by it
 * (DECISIONS §5). Ties break by id in the direction of the first sort key, as the seed's `order` did.
 * Every field has an index of its own (migration 0001 and users.migrations.ts).
 */
export const USER_QUERY = defineListGrammar({
  resource: 'users',
  tieBreak: 'follow',
  orderParameter: true,
  seedParameters: ['role', 'status'],
  fields: {
    id: { column: 'id', type: 'integer', operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'] },
    name: { column: 'name', type: 'text' },
    email: { column: 'email', type: 'text', adminOnly: true },
    age: { column: 'age', type: 'integer', nullable: true },
    role: { column: 'role', type: 'enum', values: ['user', 'admin'] },
    status: { column: 'status', type: 'enum', values: ['active', 'inactive', 'suspended'] },
    emailVerified: { column: 'email_verified', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'timestamp' },
  },
});
