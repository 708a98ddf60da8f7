/**
 * What code outside the users module may read of users directly (other modules' services, the
 * CLI). Nothing outside this module imports users.repository.ts (the dependency rules in
 * .dependency-cruiser.cjs); each function takes the caller's `db`, a transaction included.
 */
export { findUserByEmail, findUserById } from './users.repository.ts';
