import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeText, FileContent, formatBytes } from '../../../../src/node/review/fileContent.ts';

describe('file contents for reviews', () => {
  it('treats NUL bytes and invalid UTF-8 as binary, and keeps a BOM as text', () => {
    assert.equal(decodeText(Buffer.from('plain\n')), 'plain\n');
    assert.equal(decodeText(Buffer.from([0x61, 0x00, 0x62])), null);
    assert.equal(decodeText(Buffer.from([0xc3, 0x28])), null, 'invalid UTF-8 (latin-1 files)');
    assert.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x61])), '\uFEFFa', 'the BOM stays, so text → bytes round-trips');
  });

  it('hands a client its own string back, even one a text diff cannot show', () => {
    const withNul = FileContent.fromString('a\u0000b');
    assert.equal(withNul.isBinary, true);
    assert.equal(withNul.toResultString(), 'a\u0000b');
    const loneSurrogate = FileContent.fromString('x\uD800y');
    assert.equal(loneSurrogate.isBinary, true);
    assert.equal(loneSurrogate.toResultString(), 'x\uD800y');
    const emoji = FileContent.fromString('ok 👍\r\n');
    assert.equal(emoji.isBinary, false);
    assert.equal(emoji.size, Buffer.byteLength('ok 👍\r\n'));
  });

  it('formats sizes for messages', () => {
    assert.equal(formatBytes(1), '1 byte');
    assert.equal(formatBytes(512), '512 bytes');
    assert.equal(formatBytes(20 * 1024 * 1024), '20.0 MiB');
  });
});
