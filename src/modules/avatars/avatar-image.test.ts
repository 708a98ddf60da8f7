import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { avatarTypeOf, sniffImageType } from './avatar-image.ts';
import { JPEG_BYTES, PNG_BYTES, WEBP_BYTES } from '../../../test/support/avatar-samples.ts';

describe('avatar image sniffing', () => {
  it('recognises PNG, JPEG and WebP by their signatures', () => {
    assert.equal(sniffImageType(PNG_BYTES), 'image/png');
    assert.equal(sniffImageType(JPEG_BYTES), 'image/jpeg');
    assert.equal(sniffImageType(WEBP_BYTES), 'image/webp');
  });

  it('recognises nothing else: text, truncated signatures, other RIFF files, GIF, SVG', () => {
    for (const bytes of [
      Buffer.from('hello, I am a text file'),
      Buffer.alloc(0),
      PNG_BYTES.subarray(0, 7),
      Buffer.from([0xff, 0xd8]),
      Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]),
      Buffer.from('GIF89a'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    ]) {
      assert.equal(sniffImageType(bytes), undefined, bytes.toString('hex'));
    }
  });

  it('reads the media type of a Content-Type header, ignoring case and parameters', () => {
    assert.equal(avatarTypeOf('image/png'), 'image/png');
    assert.equal(avatarTypeOf('IMAGE/JPEG; charset=binary'), 'image/jpeg');
    assert.equal(avatarTypeOf(' image/webp '), 'image/webp');
    for (const header of [undefined, '', 'image/gif', 'image/svg+xml', 'application/json', 'image/pngx']) {
      assert.equal(avatarTypeOf(header), undefined, String(header));
    }
  });
});
