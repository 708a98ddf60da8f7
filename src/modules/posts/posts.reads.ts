/**
 * What other modules may read of posts directly. Nothing outside this module imports
 * posts.repository.ts (the dependency rules in .dependency-cruiser.cjs); each function takes the
 * caller's `db`, a transaction included (comments check their post inside their own).
 */
export { findPostById } from './posts.repository.ts';
