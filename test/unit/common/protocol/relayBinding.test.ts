import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkChannelBinding, checkMachineBinding, checkRequestBinding, checkSessionBinding } from '../../../../src/common/protocol/relay/binding.ts';
import { base64DecodedLength, encodeFrame, isStdBase64, rfc3339 } from '../../../../src/common/protocol/relay/frames.ts';
import { parseEnvelope } from '../../../../src/common/protocol/relay/envelope.ts';

describe('relay binding checks', () => {
  it('requires the requestId of the request', () => {
    assert.equal(checkRequestBinding({ requestId: 'y' }, { requestId: 'y' }), undefined);
    assert.equal(checkRequestBinding({ requestId: 'y' }, { requestId: 'x' }), 'binding: requestId mismatch: got "x", want "y"');
    assert.equal(checkRequestBinding({ requestId: 'y' }, {}), 'binding: actual requestId is empty');
    assert.equal(checkRequestBinding({}, { requestId: 'x' }), 'binding: expected requestId is empty');
  });

  it('requires the same non-empty sessionId, and the channelId when one was given', () => {
    assert.equal(checkSessionBinding({ sessionId: 's' }, { sessionId: 's', channelId: 'any' }), undefined);
    assert.equal(checkSessionBinding({ sessionId: 's', channelId: 'c' }, { sessionId: 's', channelId: 'c' }), undefined);
    assert.equal(checkSessionBinding({ sessionId: 's' }, { sessionId: '' }), 'binding: actual sessionId is empty');
    assert.equal(checkSessionBinding({ sessionId: 's' }, { sessionId: 't' }), 'binding: sessionId mismatch: got "t", want "s"');
    assert.equal(checkSessionBinding({ sessionId: 's', channelId: 'c' }, { sessionId: 's', channelId: 'd' }), 'binding: channelId mismatch: got "d", want "c"');
    assert.equal(checkSessionBinding({ sessionId: 's', channelId: 'c' }, { sessionId: 's' }), 'binding: actual channelId is empty');
    assert.equal(checkChannelBinding({ channelId: 'c' }, { channelId: 'c' }), undefined);
    assert.equal(checkMachineBinding('m1', { machineId: 'm2' }), 'binding: machineId mismatch: got "m2", want "m1"');
    assert.equal(checkMachineBinding('m1', { machineId: 'm1' }), undefined);
  });
});

describe('relay frame helpers', () => {
  it('encodes a frame its own parser accepts', () => {
    const text = encodeFrame('terminalExit', { terminalId: 't', sessionId: 's', channelId: 'c', reason: 'process_exit', exitCode: 0, endedAt: rfc3339(0) });
    assert.deepEqual(JSON.parse(text), { type: 'terminalExit', terminalId: 't', sessionId: 's', channelId: 'c', reason: 'process_exit', exitCode: 0, endedAt: '1970-01-01T00:00:00Z' });
    assert.ok(parseEnvelope(text).ok);
  });

  it('tells standard base64 from everything else', () => {
    for (const good of ['', 'YQ==', 'YWI=', 'YWJj', 'b2s=', '+/+/']) assert.ok(isStdBase64(good), good);
    for (const bad of ['YQ', 'YQ=', 'Y===', 'YW Jj', 'YWJj\n', '-_-_', 'YQ==YQ==', '====']) assert.ok(!isStdBase64(bad), bad);
    assert.equal(base64DecodedLength('YWI='), 2);
    assert.equal(base64DecodedLength('YWJj'), 3);
  });
});
