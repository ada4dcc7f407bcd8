import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outputFrameHeaderBytes, readOutputFrameHeader, writeOutputFrameHeader } from '../../../../src/common/api/wire.ts';

/** A frame as the Hub builds one (src/node/server/webSocketBridge.ts). */
function frameOf(id: string, offset: number, data: string): Buffer {
  const headerBytes = outputFrameHeaderBytes(id);
  const frame = Buffer.alloc(headerBytes + Buffer.byteLength(data));
  assert.equal(writeOutputFrameHeader(frame, id, offset), headerBytes);
  frame.write(data, headerBytes, 'utf8');
  return frame;
}

describe('terminal.output binary frames', () => {
  it('carries the id, the offset and the UTF-8 output', () => {
    const frame = frameOf('t-8b7a001c', 2 ** 40 + 3, 'héllo ✓\r\n');
    const header = readOutputFrameHeader(frame);
    assert.ok(typeof header !== 'string', header as string);
    assert.equal(header.id, 't-8b7a001c');
    assert.equal(header.offset, 2 ** 40 + 3);
    assert.equal(frame.subarray(header.dataStart).toString('utf8'), 'héllo ✓\r\n');
  });

  it('reads a frame that sits inside a larger buffer', () => {
    const frame = frameOf('t-1', 7, 'x');
    const inside = Buffer.concat([Buffer.from('junk'), frame]).subarray(4);
    const header = readOutputFrameHeader(inside);
    assert.ok(typeof header !== 'string');
    assert.deepEqual({ id: header.id, offset: header.offset }, { id: 't-1', offset: 7 });
  });

  it('says what is wrong with a frame it cannot read', () => {
    assert.match(readOutputFrameHeader(new Uint8Array([])) as string, /not an output frame/);
    assert.match(readOutputFrameHeader(new Uint8Array([2, 1, 65])) as string, /not an output frame \(kind 2\)/);
    assert.match(readOutputFrameHeader(new Uint8Array([1, 5, 65, 66])) as string, /shorter than its header/);
    const badId = frameOf('t 1', 0, '');
    assert.match(readOutputFrameHeader(badId) as string, /no valid terminal id/);
    const badOffset = frameOf('t-1', 0, '');
    badOffset.writeDoubleBE(-1, 2 + 3);
    assert.match(readOutputFrameHeader(badOffset) as string, /bad offset/);
    badOffset.writeDoubleBE(1.5, 2 + 3);
    assert.match(readOutputFrameHeader(badOffset) as string, /bad offset/);
  });
});
