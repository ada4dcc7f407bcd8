/**
 * The remote view's per-terminal stream: snapshot then output in seq order, duplicates dropped, a
 * gap (or bytes that are not base64) answered with a fresh snapshot that resets the pane, and
 * UTF-8 characters split across frames decoded whole.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/common/api/errors.ts';
import { RelayTerminalStream } from '../../../src/browser/relayTerminalStream.ts';
import { decodeBase64, encodeBase64, encodeInputChunks } from '../../../src/browser/relayBytes.ts';

function harness(snapshotTimeoutMs = 60_000) {
  const writes: { text: string; reset: boolean }[] = [];
  let snapshotRequests = 0;
  const stream = new RelayTerminalStream({
    terminalId: 't1',
    snapshotTimeoutMs,
    requestSnapshot: () => snapshotRequests++,
    onOutput: (text, reset) => writes.push({ text, reset }),
  });
  return { stream, writes, snapshotRequests: () => snapshotRequests };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('RelayTerminalStream', () => {
  it('resolves an attach with its snapshot, then writes output frames in seq order and drops repeats', async () => {
    const { stream, writes } = harness();
    const attached = stream.attach();
    stream.onOutput(3, bytes('before the snapshot')); // belongs to a screen not drawn yet
    stream.onSnapshot(4, bytes('$ '));
    assert.equal(await attached, '$ ');
    stream.onOutput(4, bytes('already in the snapshot'));
    stream.onOutput(5, bytes('ls\r\n'));
    stream.onOutput(5, bytes('ls\r\n'));
    stream.onOutput(6, bytes('a b\r\n'));
    assert.deepEqual(writes, [
      { text: 'ls\r\n', reset: false },
      { text: 'a b\r\n', reset: false },
    ]);
    stream.dispose();
  });

  it('asks for a fresh snapshot on a seq gap, drops output until it comes, then resets the pane with it', async () => {
    const { stream, writes, snapshotRequests } = harness();
    const attached = stream.attach();
    stream.onSnapshot(1, bytes('one'));
    await attached;
    stream.onOutput(2, bytes('two'));
    stream.onOutput(4, bytes('four')); // 3 went missing
    assert.equal(stream.phase, 'resyncing');
    assert.equal(snapshotRequests(), 1);
    stream.onOutput(5, bytes('five'));
    stream.onSnapshot(5, bytes('SCREEN'));
    stream.onOutput(5, bytes('five again'));
    stream.onOutput(6, bytes('six'));
    assert.deepEqual(writes, [
      { text: 'two', reset: false },
      { text: 'SCREEN', reset: true },
      { text: 'six', reset: false },
    ]);
    assert.equal(stream.gaps, 1);
    stream.dispose();
  });

  it('treats output that is not base64 like a gap', async () => {
    const { stream, snapshotRequests } = harness();
    const attached = stream.attach();
    stream.onSnapshot(1, bytes(''));
    await attached;
    stream.onOutput(2, undefined);
    assert.equal(snapshotRequests(), 1);
    assert.equal(stream.phase, 'resyncing');
    stream.dispose();
  });

  it('repeats a snapshot request that got no answer', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { stream, snapshotRequests } = harness(1000);
    const attached = stream.attach();
    stream.onSnapshot(1, bytes(''));
    await attached;
    stream.onOutput(3, bytes('x'));
    assert.equal(snapshotRequests(), 1);
    t.mock.timers.tick(1000);
    assert.equal(snapshotRequests(), 2);
    stream.onSnapshot(3, bytes('back'));
    t.mock.timers.tick(5000);
    assert.equal(snapshotRequests(), 2, 'no more requests once a snapshot came');
    stream.dispose();
  });

  it('decodes a UTF-8 character split across two frames as one character', async () => {
    const { stream, writes } = harness();
    const attached = stream.attach();
    stream.onSnapshot(0, bytes(''));
    await attached;
    const euro = bytes('€'); // e2 82 ac
    stream.onOutput(1, euro.subarray(0, 2));
    stream.onOutput(2, euro.subarray(2));
    assert.equal(writes.map((write) => write.text).join(''), '€');
    stream.dispose();
  });

  it('fails an attach with TIMEOUT when no snapshot comes, and with the given error when told to', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { stream } = harness(2000);
    const attached = stream.attach();
    t.mock.timers.tick(2000);
    await assert.rejects(attached, (error: unknown) => error instanceof ApiError && error.code === 'TIMEOUT' && /no snapshot of terminal t1/.test(error.message));
    const again = stream.attach();
    stream.fail(new ApiError('CONNECTION_CLOSED', 'gone'));
    await assert.rejects(again, { code: 'CONNECTION_CLOSED' });
  });

  it('ignores everything while detached', () => {
    const { stream, writes, snapshotRequests } = harness();
    stream.onSnapshot(1, bytes('x'));
    stream.onOutput(9, bytes('y'));
    assert.deepEqual(writes, []);
    assert.equal(snapshotRequests(), 0);
  });
});

describe('relay bytes in the browser', () => {
  it('round-trips bytes through standard base64 and refuses anything else', () => {
    const all = new Uint8Array(256).map((_, index) => index);
    assert.deepEqual(decodeBase64(encodeBase64(all)), all);
    assert.equal(encodeBase64(bytes('hi')), Buffer.from('hi').toString('base64'));
    assert.equal(decodeBase64('aGk'), undefined, 'missing padding');
    assert.equal(decodeBase64('a-_b'), undefined, 'base64url is not standard base64');
  });

  it('cuts input into frames of at most N bytes without splitting a character', () => {
    const text = `${'a'.repeat(7)}€😀${'b'.repeat(20)}`;
    const chunks = encodeInputChunks(text, 8);
    const decoded = chunks.map((chunk) => Buffer.from(chunk, 'base64'));
    for (const chunk of decoded) assert.ok(chunk.length <= 8, `chunk of ${chunk.length} bytes`);
    // Each frame decodes on its own (as the daemon does) into whole characters.
    assert.equal(decoded.map((chunk) => chunk.toString('utf8')).join(''), text);
    assert.deepEqual(encodeInputChunks('', 8), []);
  });
});
