import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bodyBytes, decodeBodyFrame, encodeBodyFrame } from '../../../../src/node/relay/preview/previewBodyFrames.ts';

/** The documented layout, by hand: 4 bytes header length (big-endian), the header JSON, the body. */
function layOut(header: unknown, body: Buffer = Buffer.alloc(0)): Buffer {
  const json = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, body]);
}

describe('preview bodies as binary frames (previewBinaryBodies)', () => {
  it('encodes to the documented layout: header length, the JSON with bodyBase64 "", the bytes', () => {
    const body = Buffer.from([0, 1, 2, 255]);
    const frame = encodeBodyFrame('previewStreamChunk', { streamId: 's1', sequence: 3, final: false }, body);
    const headerBytes = frame.readUInt32BE(0);
    assert.deepEqual(JSON.parse(frame.toString('utf8', 4, 4 + headerBytes)), { type: 'previewStreamChunk', streamId: 's1', sequence: 3, final: false, bodyBase64: '' });
    assert.deepEqual(frame.subarray(4 + headerBytes), body);
  });

  it('decodes both body messages with their fields and bytes (an empty body too), checked by the schema', () => {
    const text = Buffer.from('héllo ✓');
    const decoded = decodeBodyFrame(layOut({ type: 'previewWebSocketData', streamId: 'w', sequence: 1, isBinary: false, bodyBase64: '' }, text));
    assert.ok(decoded.ok);
    assert.equal(decoded.message.type, 'previewWebSocketData');
    assert.deepEqual(decoded.message.body, text);
    const empty = decodeBodyFrame(encodeBodyFrame('previewStreamChunk', { streamId: 's', sequence: 9, final: true }, Buffer.alloc(0)));
    assert.ok(empty.ok && empty.message.type === 'previewStreamChunk' && empty.message.final && empty.message.body.length === 0);
    const wrongField = decodeBodyFrame(layOut({ type: 'previewStreamChunk', streamId: 's', sequence: '1', final: false, bodyBase64: '' }));
    assert.ok(!wrongField.ok);
    assert.equal(wrongField.kind, 'schema');
    assert.match(wrongField.error, /sequence/);
  });

  it('refuses what is not a body frame, each with its own kind and reason', () => {
    const cases: Array<[Buffer, string, RegExp]> = [
      [Buffer.from([0, 0, 1]), 'binary-short', /a binary frame of 3 bytes has no header length/],
      [Buffer.concat([Buffer.from([0, 0, 0, 50]), Buffer.from('{}')]), 'binary-header', /header of 50 bytes is longer than the frame \(6 bytes\)/],
      [layOut('{"type":"previewStreamChunk",'), 'json', /./],
      [layOut('[1]'), 'root', /root must be object/],
      [layOut({ streamId: 's' }), 'missing-type', /missing type/],
      [layOut({ type: 'previewOpen', requestId: 'r', previewId: 'p', sessionId: 's', channelId: 'c', machineId: 'm', targetHost: 'h', targetPort: 1, expiresAt: 'x' }), 'binary-type', /previewOpen is never sent as a binary frame/],
      [layOut({ type: 'previewStreamChunk', streamId: 's', sequence: 1, final: false, bodyBase64: 'eA==' }), 'binary-body', /bodyBase64 must be ""/],
    ];
    for (const [frame, kind, error] of cases) {
      const decoded = decodeBodyFrame(frame);
      assert.ok(!decoded.ok, kind);
      assert.equal(decoded.kind, kind);
      assert.match(decoded.error, error);
    }
  });

  it("keeps the envelope's limits: the whole frame within maxFrameBytes, the header's depth", () => {
    const big = encodeBodyFrame('previewStreamChunk', { streamId: 's', sequence: 1, final: false }, Buffer.alloc(1 << 20));
    const over = decodeBodyFrame(big);
    assert.ok(!over.ok);
    assert.equal(over.kind, 'size');
    assert.match(over.error, /^frame exceeds max size: \d+ > 1048576 bytes$/);
    const small = decodeBodyFrame(encodeBodyFrame('previewStreamChunk', { streamId: 's', sequence: 1, final: false }, Buffer.alloc(100)), { maxFrameBytes: 64 });
    assert.ok(!small.ok && small.kind === 'size');
    const deep = decodeBodyFrame(layOut(`{"type":"previewStreamChunk","x":${'['.repeat(40)}${']'.repeat(40)}}`));
    assert.ok(!deep.ok && deep.kind === 'depth');
  });

  it('bodyBytes: the binary body as is; base64 decoded; not standard base64 refused', () => {
    const bytes = Buffer.from('abc');
    assert.equal(bodyBytes({ bodyBase64: '', body: bytes }), bytes);
    assert.deepEqual(bodyBytes({ bodyBase64: 'YWJj' }), bytes);
    assert.equal(bodyBytes({ bodyBase64: 'YWJj\n' }), undefined);
    assert.equal(bodyBytes({ bodyBase64: 'YWJ' }), undefined);
  });
});
