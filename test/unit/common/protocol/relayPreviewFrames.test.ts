/**
 * The preview tunnel's frames against the reference module's field names and types
 * (gsd-relay.md "Dev-server preview tunnel"): each parses as the reference writes it, a wrong
 * type is refused naming the field, unknown fields are dropped, and a full-size chunk stays
 * inside the 1 MiB envelope.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RelayConstants } from '../../../../src/common/constants.ts';
import { parseEnvelope } from '../../../../src/common/protocol/relay/envelope.ts';
import { encodeFrame } from '../../../../src/common/protocol/relay/frames.ts';
import { utf8ByteLength } from '../../../../src/common/protocol/relay/frameLimits.ts';
import { daemonToRelayPreviewTypes, daemonToViewerTypes, relayToDaemonPreviewTypes, viewerToDaemonTypes } from '../../../../src/common/protocol/relay/messages.ts';

/** One frame of each type, spelled as protocol-go marshals it. */
const referenceFrames: Record<string, Record<string, unknown>> = {
  localServerDetected: { sessionId: 's', channelId: '*', host: '127.0.0.1', port: 5173, url: 'http://localhost:5173/', source: 'output', detectedAt: '2026-12-04T10:00:00Z' },
  previewOpen: { requestId: 'r', previewId: 'p', sessionId: 's', channelId: 'c', machineId: 'm', targetHost: '127.0.0.1', targetPort: 5173, expiresAt: '2026-12-04T18:00:00Z' },
  previewOpenResult: { requestId: 'r', previewId: 'p', ok: false, errorCode: 'port_not_shared', message: 'no shared pane listens on 9' },
  previewClose: { previewId: 'p', reason: 'expired' },
  previewHttpRequest: { requestId: 'r', streamId: 'st', previewId: 'p', method: 'POST', path: '/api?x=1', headers: { 'content-type': ['application/json'], accept: ['a', 'b'] } },
  previewHttpResponseHead: { requestId: 'r', streamId: 'st', previewId: 'p', statusCode: 200, headers: { 'content-type': ['text/html'] } },
  previewStreamChunk: { streamId: 'st', sequence: 1, bodyBase64: 'aGk=', final: false },
  previewStreamCancel: { streamId: 'st', reason: 'viewer went away' },
  previewStreamAck: { streamId: 'st', sequence: 4 },
  previewWebSocketOpen: { streamId: 'ws', previewId: 'p', path: '/hmr', headers: { origin: ['http://localhost:5173'] }, protocols: ['vite-hmr'] },
  previewWebSocketOpenResult: { streamId: 'ws', previewId: 'p', ok: true, protocol: 'vite-hmr' },
  previewWebSocketData: { streamId: 'ws', sequence: 3, isBinary: true, bodyBase64: 'AAE=' },
  previewWebSocketClose: { streamId: 'ws', code: 1000, reason: 'done' },
};

describe('preview tunnel frames', () => {
  it('parse as the reference module writes them, unknown fields dropped', () => {
    for (const [type, fields] of Object.entries(referenceFrames)) {
      const parsed = parseEnvelope(JSON.stringify({ type, ...fields, addedLater: { x: 1 } }));
      assert.deepEqual(parsed, { ok: true, message: { type, ...fields } }, type);
    }
  });

  it('refuse a field of the wrong type, naming it', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['previewOpen', { ...referenceFrames.previewOpen, targetPort: '5173' }, 'targetPort'],
      ['previewStreamChunk', { ...referenceFrames.previewStreamChunk, sequence: 1.5 }, 'sequence'],
      ['previewStreamChunk', { ...referenceFrames.previewStreamChunk, final: 'true' }, 'final'],
      ['previewHttpRequest', { ...referenceFrames.previewHttpRequest, headers: { accept: 'text/html' } }, 'headers'],
      ['previewWebSocketOpen', { ...referenceFrames.previewWebSocketOpen, protocols: 'vite-hmr' }, 'protocols'],
      ['previewWebSocketData', { ...referenceFrames.previewWebSocketData, isBinary: 1 }, 'isBinary'],
      ['localServerDetected', { ...referenceFrames.localServerDetected, port: null }, 'port'],
    ];
    for (const [type, fields, field] of cases) {
      const parsed = parseEnvelope(JSON.stringify({ type, ...fields }));
      assert.equal(parsed.ok, false, `${type} with a bad ${field}`);
      assert.match((parsed as { error: string }).error, new RegExp(`^unmarshal ${type}: ${field}`));
    }
  });

  it('keeps a full chunk of previewChunkBytes inside the advertised frame size', () => {
    const frame = encodeFrame('previewStreamChunk', {
      streamId: 'x'.repeat(64),
      sequence: Number.MAX_SAFE_INTEGER,
      bodyBase64: Buffer.alloc(RelayConstants.previewChunkBytes, 0xff).toString('base64'),
      final: false,
    });
    assert.ok(utf8ByteLength(frame) < RelayConstants.previewMaxFrameBytes);
    assert.equal(parseEnvelope(frame).ok, true);
  });

  it('are relay⇄daemon frames: a viewer can neither send them nor be sent them', () => {
    for (const type of [...relayToDaemonPreviewTypes, ...daemonToRelayPreviewTypes]) {
      assert.equal(viewerToDaemonTypes.has(type), false, type);
      assert.equal(daemonToViewerTypes.has(type), false, type);
    }
    // Detection is news for viewers, like the pane announcements.
    assert.equal(daemonToViewerTypes.has('localServerDetected'), true);
  });
});
