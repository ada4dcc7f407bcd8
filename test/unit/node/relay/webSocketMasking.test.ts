/**
 * `ws` masks every frame a client sends (the daemon's link to the relay is a client) and unmasks
 * every frame a server receives, in JavaScript unless `bufferutil` loads — about 330 ms per 50 MiB
 * on these machines against 3 ms native, the largest cost left on a preview download. If its
 * prebuilt addon stopped loading here, `ws` would fall back without a word; this says so.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

describe("WebSocket masking uses bufferutil's native code", () => {
  it('loads the prebuilt addon and masks/unmasks a frame back to its bytes', () => {
    const bufferUtil = require('bufferutil') as { mask(source: Buffer, mask: Buffer, output: Buffer, offset: number, length: number): void; unmask(buffer: Buffer, mask: Buffer): void };
    const source = Buffer.from(Array.from({ length: 1000 }, (_, index) => (index * 7) & 255));
    const key = Buffer.from([0x12, 0x34, 0x56, 0x78]);
    const masked = Buffer.alloc(source.length);
    bufferUtil.mask(source, key, masked, 0, source.length);
    assert.equal(masked[5], source[5]! ^ key[1]!);
    assert.notDeepEqual(masked, source);
    bufferUtil.unmask(masked, key);
    assert.deepEqual(masked, source);
  });
});
