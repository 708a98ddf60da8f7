import { applyPatch, type Operation } from 'fast-json-patch';

export type State = Record<string, unknown>;

/** A revision as `GET .../revisions` lists it (DECISIONS §19, docs/HISTORY.md). */
export interface Revision {
  rev: number;
  at: string;
  op: 'create' | 'update' | 'delete' | 'restore' | 'revert' | 'purge';
  actor: { type: 'user' | 'system'; id: number | null };
  requestId: string | null;
  /** RFC 6902 JSON Patch from the item's previous revision (`[]` for a delete, restore or purge). */
  changes: Operation[];
}

export interface FieldChange {
  field: string;
  old: unknown;
  new: unknown;
}

/** The top-level field a JSON Pointer names (`/image/url` is `image`), RFC 6901's escapes undone. */
const fieldOf = (path: string) => (path.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * Each revision's changed fields with their old and new value, for a page of revisions (newest first).
 * `before` is the item as it was just before the page's oldest revision (`{}` when that revision is the
 * item's first kept one: its patch then starts from `{}`). The patches are applied oldest first, which
 * rebuilds each revision's state exactly as the API defines it, so one state read serves a whole page.
 */
export function fieldChanges(before: State, revisions: readonly Revision[]): FieldChange[][] {
  let state = before;
  const changes: FieldChange[][] = [];
  for (const revision of [...revisions].reverse()) {
    const next = applyPatch(state, revision.changes, false, false).newDocument;
    const fields = [...new Set(revision.changes.map((operation) => fieldOf(operation.path)))];
    changes.unshift(fields.map((field) => ({ field, old: state[field], new: next[field] })));
    state = next;
  }
  return changes;
}
