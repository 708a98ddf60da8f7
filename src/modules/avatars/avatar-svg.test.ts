import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { colourOf, initialsOf, renderAvatarSvg } from './avatar-svg.ts';

describe('generated avatar', () => {
  it('takes up to two initials from the first and last words', () => {
    assert.equal(initialsOf('Ada Lovelace'), 'AL');
    assert.equal(initialsOf('  grace   brewster murray hopper '), 'GH');
    assert.equal(initialsOf('Plato'), 'P');
    assert.equal(initialsOf('émile zola'), 'ÉZ');
    assert.equal(initialsOf('(Bob) "the builder"'), 'BB');
    assert.equal(initialsOf('李 小龙'), '李小');
    assert.equal(initialsOf('   '), '?');
    assert.equal(initialsOf('!!! ???'), '?');
  });

  it('derives a stable hex colour from the id, different for neighbouring ids', () => {
    assert.match(colourOf(1), /^#[0-9a-f]{6}$/);
    assert.equal(colourOf(42), colourOf(42));
    const colours = new Set(Array.from({ length: 10 }, (_, i) => colourOf(i + 1)));
    assert.equal(colours.size, 10);
  });

  it('renders an SVG with the initials on that colour, escaping the name', () => {
    const svg = renderAvatarSvg({ id: 7, name: '<script>alert(1)</script> & "Co"' });
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(svg.includes(`fill="${colourOf(7)}"`));
    assert.ok(!svg.includes('<script>'));
    assert.ok(svg.includes('&lt;script&gt;'));
    assert.ok(svg.includes('>SC</text>'));
    assert.ok(renderAvatarSvg({ id: 3, name: 'Ada Lovelace' }).includes('>AL</text>'));
  });
});
