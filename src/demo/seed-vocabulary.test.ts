import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postRow, productRow } from './seed-rows.ts';
import { POST_TEXT_WORDS, PRODUCT_TEXT_WORDS } from './seed-vocabulary.ts';

const wordsOf = (text: string) => text.toLowerCase().match(/[a-z]+/g) ?? [];

describe('the text the seed writes for search', () => {
  it('makes product descriptions of a few hundred real English words, the same on every run', () => {
    const descriptions = Array.from({ length: 300 }, (_, i) => productRow(7, i, 10).description).filter(Boolean);
    const used = new Set(descriptions.flatMap((text) => wordsOf(text!)));
    assert.ok(PRODUCT_TEXT_WORDS.length >= 200);
    assert.ok(
      [...used].every((word) => PRODUCT_TEXT_WORDS.includes(word)),
      'only words of the vocabulary',
    );
    assert.ok(used.size > 150, `a varied text: ${used.size} distinct words`);
    assert.ok(!used.has('lorem'));
    assert.deepEqual(productRow(7, 42, 10), productRow(7, 42, 10));
  });

  it('makes post titles and contents of real English words, common ones more often than rare ones', () => {
    const posts = Array.from({ length: 200 }, (_, i) => postRow(7, i, 5, 1).row);
    const words = posts.flatMap((post) => [...wordsOf(post.title), ...wordsOf(post.content)]);
    assert.ok(POST_TEXT_WORDS.length >= 300);
    assert.ok(words.every((word) => POST_TEXT_WORDS.includes(word)));
    const count = (word: string) => words.filter((w) => w === word).length;
    assert.ok(count(POST_TEXT_WORDS[0]!) > 5 * count(POST_TEXT_WORDS.at(-1)!), 'a skewed draw');
    assert.deepEqual(postRow(7, 9, 5, 1), postRow(7, 9, 5, 1));
  });
});
