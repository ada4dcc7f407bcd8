/**
 * One preview stream's outgoing side (PreviewOutput), pulled frame by frame as the link does:
 * order kept, sequences given as frames leave, acks first and coalesced, the relay's window held
 * (one frame always fits), bad acks refused, final ends it, close drops what waits.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OutputSource, RelayConnection } from '../../../../src/node/relay/relayConnection.ts';
import { PreviewOutput } from '../../../../src/node/relay/preview/previewOutput.ts';

/** The link's pull side: remembers who said it has frames, and pulls on demand. */
function fakeLink() {
  const ready = new Set<OutputSource>();
  const forgotten: OutputSource[] = [];
  const connection = { markReady: (source: OutputSource) => ready.add(source), forget: (source: OutputSource) => forgotten.push(source) } as unknown as RelayConnection;
  return { connection, ready, forgotten };
}

function drain(output: PreviewOutput): Array<Record<string, unknown>> {
  const frames: Array<Record<string, unknown>> = [];
  for (let frame = output.nextFrame(); frame !== undefined; frame = output.nextFrame()) frames.push(JSON.parse(typeof frame === 'string' ? frame : assert.fail('these outputs encode text frames')));
  return frames;
}

function makeOutput(window: number | undefined) {
  const link = fakeLink();
  const drained: number[] = [];
  let finished = 0;
  const output = new PreviewOutput({
    connection: link.connection,
    streamId: 's1',
    encode: (sequence, item) => JSON.stringify({ type: 'previewStreamChunk', sequence, bytes: item.body.length, final: item.final ?? false }),
    window,
    onDrained: (sent) => drained.push(sent),
    onFinished: () => finished++,
  });
  return { output, link, drained, finished: () => finished };
}

describe('preview output', () => {
  it('keeps order, numbers body frames as they leave, and sends the coalesced ack first', () => {
    const { output, link } = makeOutput(undefined);
    output.pushFrame('{"type":"previewHttpResponseHead"}');
    output.pushBody({ body: Buffer.alloc(10) });
    output.pushBody({ body: Buffer.alloc(20) });
    output.ack(1);
    output.ack(3);
    assert.equal(link.ready.size, 1);
    assert.equal(output.pendingBytes, 30);
    assert.deepEqual(drain(output), [
      { type: 'previewStreamAck', streamId: 's1', sequence: 3 },
      { type: 'previewHttpResponseHead' },
      { type: 'previewStreamChunk', sequence: 1, bytes: 10, final: false },
      { type: 'previewStreamChunk', sequence: 2, bytes: 20, final: false },
    ]);
    assert.equal(output.pendingBytes, 0);
    assert.equal(output.peakPendingBytes, 30);
  });

  it("holds the relay's window: the next body frame waits for an ack; one frame always fits", () => {
    const { output, drained } = makeOutput(100);
    for (const size of [60, 30, 50, 200]) output.pushBody({ body: Buffer.alloc(size) });
    assert.deepEqual(drain(output).map((frame) => frame.sequence), [1, 2], '60 + 30 fit, + 50 would not');
    assert.equal(output.unackedBytes, 90);
    assert.equal(output.acknowledged(1), true);
    assert.deepEqual(drain(output).map((frame) => frame.sequence), [3], '30 + 50 fit');
    assert.equal(output.acknowledged(3), true);
    assert.deepEqual(drain(output).map((frame) => frame.bytes), [200], 'larger than the window, but nothing is outstanding');
    assert.deepEqual(drained, [60, 30, 50, 200]);
  });

  it('refuses an ack for a sequence never sent', () => {
    const { output } = makeOutput(100);
    output.pushBody({ body: Buffer.alloc(10) });
    drain(output);
    assert.equal(output.acknowledged(2), false);
    assert.equal(output.acknowledged(0), false);
    assert.equal(output.unackedBytes, 10);
    assert.equal(output.acknowledged(1), true);
    assert.equal(output.unackedBytes, 0);
  });

  it('sends without waiting to a relay without a window', () => {
    const { output } = makeOutput(undefined);
    for (let i = 0; i < 5; i++) output.pushBody({ body: Buffer.alloc(1000) });
    assert.equal(drain(output).length, 5);
    assert.equal(output.unackedBytes, 0);
  });

  it('finishes after the final frame; close drops what waits and leaves the link', async () => {
    const first = makeOutput(undefined);
    first.output.pushBody({ body: Buffer.alloc(5), final: true });
    assert.deepEqual(drain(first.output).map((frame) => frame.final), [true]);
    await Promise.resolve();
    assert.equal(first.finished(), 1);

    const second = makeOutput(undefined);
    second.output.pushBody({ body: Buffer.alloc(5) });
    second.output.close();
    assert.equal(second.output.nextFrame(), undefined);
    assert.equal(second.output.pendingBytes, 0);
    assert.deepEqual(second.link.forgotten, [second.output]);
    second.output.pushBody({ body: Buffer.alloc(5) });
    assert.equal(second.output.pendingBytes, 0, 'nothing is taken after close');
  });
});
