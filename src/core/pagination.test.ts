import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageWindow, paginationOf, parseFields, pickFields } from './pagination.ts';

const rules = { defaultLimit: 10, maxLimit: 100 };

describe('page arithmetic', () => {
  it('defaults to page 1 and the default limit', () => {
    assert.deepEqual(pageWindow({}, rules), { page: 1, limit: 10, offset: 0 });
  });

  it('raises page below 1 to 1, limit below 1 to 1, and caps the limit', () => {
    assert.deepEqual(pageWindow({ page: 0, limit: 0 }, rules), { page: 1, limit: 1, offset: 0 });
    assert.deepEqual(pageWindow({ page: -3, limit: 1000 }, rules), { page: 1, limit: 100, offset: 0 });
  });

  it('computes offset = (page - 1) * limit', () => {
    assert.deepEqual(pageWindow({ page: 3, limit: 20 }, rules), { page: 3, limit: 20, offset: 40 });
  });

  it('lets an explicit offset override page', () => {
    assert.deepEqual(pageWindow({ page: 9, limit: 20, offset: 45 }, rules), { page: 3, limit: 20, offset: 45 });
    assert.deepEqual(pageWindow({ offset: -5 }, rules), { page: 1, limit: 10, offset: 0 });
  });

  it('derives totalPages, hasNext (page*limit < total) and hasPrev (page > 1)', () => {
    const at = (page: number, total: number) =>
      paginationOf({ items: [], total, window: { page, limit: 10, offset: 0 } });
    assert.deepEqual(at(1, 25), { page: 1, limit: 10, total: 25, totalPages: 3, hasNext: true, hasPrev: false });
    assert.deepEqual(at(3, 25), { page: 3, limit: 10, total: 25, totalPages: 3, hasNext: false, hasPrev: true });
    assert.deepEqual(at(2, 20), { page: 2, limit: 10, total: 20, totalPages: 2, hasNext: false, hasPrev: true });
    assert.deepEqual(at(1, 0), { page: 1, limit: 10, total: 0, totalPages: 0, hasNext: false, hasPrev: false });
  });
});

describe('fields selection', () => {
  const allowed = ['id', 'name', 'email'] as const;

  it('always includes id and drops duplicates and blanks', () => {
    assert.deepEqual(parseFields('name,,name', allowed), ['id', 'name']);
    assert.equal(parseFields(undefined, allowed), undefined);
  });

  it('rejects unknown names with a 422 naming them', () => {
    assert.throws(
      () => parseFields('name,secret', allowed),
      (error: { status: number; details: { field: string; message: string }[] }) => {
        assert.equal(error.status, 422);
        assert.equal(error.details[0]?.field, 'fields');
        assert.match(error.details[0]?.message ?? '', /secret/);
        return true;
      },
    );
  });

  it('picks only the selected fields', () => {
    assert.deepEqual(pickFields({ id: 1, name: 'a', email: 'e' }, ['id', 'email']), { id: 1, email: 'e' });
  });
});
