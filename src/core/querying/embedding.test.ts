import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { embedSource, toMany, toOne, type EmbedContext } from './embedding-relations.ts';
import { createEmbedding } from './embedding.ts';

interface Item {
  id: number;
  ownerId: number;
}

const context: EmbedContext = { viewer: null, prefix: '/api', version: 2 };

/** Widgets have an owner and parts; owners have widgets; every batch read is recorded. */
function catalogue() {
  const reads: string[] = [];
  const owners = (ids: number[]) => {
    reads.push(`owners ${ids.join()}`);
    return Promise.resolve(ids.filter((id) => id !== 404).map((id) => ({ id, ownerId: 0 })));
  };
  const parts = (ids: number[], limit: number) => {
    reads.push(`parts ${ids.join()} ${limit}`);
    return Promise.resolve(new Map(ids.map((id) => [id, [{ id: id * 10, ownerId: 1 }]])));
  };
  // Each kind names the kinds it embeds; each kind's own declaration says how its objects are read.
  const embedding = createEmbedding({
    widget: {
      relations: {
        owner: toOne('owner', (w: Item) => w.ownerId),
        parts: toMany('part', 'widget', (w: Item) => w.id),
      },
      source: embedSource<Item>({ readByParentIds: { owner: parts }, present: (p) => p }),
    },
    owner: {
      relations: { widgets: toMany('widget', 'owner', (o: Item) => o.id) },
      source: embedSource<Item>({ readByIds: owners, present: (o) => ({ ...o }) }),
    },
    part: { source: embedSource<Item>({ readByParentIds: { widget: parts }, present: (p) => p }) },
  });
  return { embedding, reads };
}

function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.status, 422);
    assert.deepEqual(
      error.details?.map((d) => d.field),
      ['include'],
    );
    return error.details![0]!.message;
  }
  assert.fail('expected a 422');
}

describe('embedding', () => {
  it('parses a comma list into a tree of relations, two levels at most', () => {
    const { embedding } = catalogue();
    const tree = embedding.parse('widget', ' owner.widgets , parts,owner ');
    assert.deepEqual([...tree.keys()], ['owner', 'parts']);
    assert.deepEqual([...tree.get('owner')!.keys()], ['widgets']);
    assert.equal(embedding.parse('widget', undefined).size, 0);
    assert.equal(embedding.parse('widget', '').size, 0);
    assert.deepEqual(embedding.paths('widget'), ['owner', 'owner.widgets', 'parts']);
  });

  it('refuses unknown relations, a third level and empty names, naming include', () => {
    const { embedding } = catalogue();
    assert.match(
      refusal(() => embedding.parse('widget', 'colour')),
      /unknown relation "colour".*owner, owner\.widgets, parts/,
    );
    assert.match(
      refusal(() => embedding.parse('widget', 'owner.widgets.owner')),
      /3 levels deep; at most 2/,
    );
    assert.match(
      refusal(() => embedding.parse('widget', 'owner,,parts')),
      /not a relation path/,
    );
    assert.match(
      refusal(() => embedding.parse('widget', 'owner.')),
      /not a relation path/,
    );
    assert.match(
      refusal(() => embedding.parse('widget', 'constructor')),
      /unknown relation/,
    );
    assert.match(
      refusal(() => embedding.parse('part', 'owner')),
      /embeds: none/,
    );
  });

  it('reads each relation once per level for all the items, and a shared object’s relations once', async () => {
    const { embedding, reads } = catalogue();
    const views = [
      { id: 1, ownerId: 7 },
      { id: 2, ownerId: 7 },
      { id: 3, ownerId: 404 },
    ];
    await embedding.attach('widget', views, embedding.parse('widget', 'owner.widgets,parts'), context);
    assert.deepEqual(reads.toSorted(), ['owners 7,404', 'parts 1,2,3 20', 'parts 7 20']);
    const [first, second, third] = views as (Item & { _embedded?: Record<string, unknown> })[];
    assert.deepEqual(first!._embedded, {
      owner: { id: 7, ownerId: 0, _embedded: { widgets: [{ id: 70, ownerId: 1 }] } },
      parts: [{ id: 10, ownerId: 1 }],
    });
    assert.equal(first!._embedded!.owner, second!._embedded!.owner);
    // A related object that does not exist (or may not be read) is left out.
    assert.deepEqual(Object.keys(third!._embedded!), ['parts']);
  });

  it('refuses at start a relation to a kind that declares no read for it', () => {
    const present = (item: Item) => item;
    assert.throws(
      () => createEmbedding({ widget: { relations: { owner: toOne('owner', (w: Item) => w.ownerId) } } }),
      /widget\.owner embeds owner by id, but no module declares that read/,
    );
    assert.throws(
      () =>
        createEmbedding({
          widget: { relations: { parts: toMany('part', 'widget', (w: Item) => w.id) } },
          part: { source: embedSource<Item>({ readByIds: () => Promise.resolve([]), present }) },
        }),
      /widget\.parts embeds part by widget, but no module declares that read/,
    );
  });

  it('reads nothing when nothing is included or there are no items', async () => {
    const { embedding, reads } = catalogue();
    await embedding.attach('widget', [{ id: 1, ownerId: 2 }], embedding.parse('widget', ''), context);
    await embedding.attach('widget', [], embedding.parse('widget', 'owner'), context);
    assert.deepEqual(reads, []);
  });
});
