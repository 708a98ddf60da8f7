/**
 * What other modules may read of comments directly. Nothing outside this module imports
 * comments.repository.ts (the dependency rules in .dependency-cruiser.cjs); each function takes
 * the caller's `db`, a transaction included.
 */
export { findCommentById } from './comments.repository.ts';
