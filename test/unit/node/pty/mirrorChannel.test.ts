import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MirrorChannel, MirrorRingReader } from '../../../../src/node/pty/mirrorChannel.ts';
import type { MirrorRequest } from '../../../../src/node/pty/mirrorProtocol.ts';

/** A channel over a small ring and the worker's side of it: what each mirror received, in order. */
function setUp(size: number) {
  const messages: MirrorRequest[] = [];
  const channel = new MirrorChannel((request) => messages.push(request), size);
  const reader = new MirrorRingReader(channel.ring);
  const received = new Map<number, string>();
  /** Handle the posted messages like the worker does; `release: false` leaves the ring unread. */
  const deliver = (release = true) => {
    for (const message of messages.splice(0)) {
      if (message.type === 'write') {
        received.set(message.mirrorId, (received.get(message.mirrorId) ?? '') + Buffer.from(reader.view(message.start, message.length)).toString());
        if (release) reader.release(message.start + message.length);
      } else if (message.type === 'writeCopy') {
        received.set(message.mirrorId, (received.get(message.mirrorId) ?? '') + Buffer.from(message.bytes).toString());
      }
    }
  };
  return { channel, messages, received, deliver, reader };
}

describe('MirrorChannel', () => {
  test('batches one mirror’s writes into one message and starts a new one for another mirror', () => {
    const { channel, messages, received, deliver } = setUp(1024);
    try {
      channel.write(1, Buffer.from('hello '), 6);
      channel.write(1, Buffer.from('world'), 5);
      channel.write(2, Buffer.from('other'), 5);
      channel.flush();
      assert.deepEqual(
        messages.map((message) => message.type === 'write' && [message.mirrorId, message.length, message.chars]),
        [
          [1, 11, 11],
          [2, 5, 5],
        ],
      );
      deliver();
      assert.equal(received.get(1), 'hello world');
      assert.equal(received.get(2), 'other');
    } finally {
      channel.dispose();
    }
  });

  test('wraps around the ring, falls back to copies while it is full, and keeps every byte in order', () => {
    const { channel, received, deliver } = setUp(64);
    try {
      let expected = '';
      for (let index = 0; index < 200; index++) {
        const text = `<${index}>`;
        expected += text;
        channel.write(7, Buffer.from(text), text.length);
        if (index % 5 === 0) channel.flush();
        // The worker keeps up only now and then: the ring fills and copies take over meanwhile.
        if (index % 17 === 0) deliver(true);
      }
      channel.flush();
      deliver(true);
      assert.equal(received.get(7), expected);
    } finally {
      channel.dispose();
    }
  });

  test('output written after a full ring goes as a copy behind what is already in the ring', () => {
    const { channel, messages, received, deliver } = setUp(16);
    try {
      channel.write(1, Buffer.from('0123456789'), 10);
      channel.write(1, Buffer.from('abcdefghij'), 10); // no room left: the open batch is posted first, then a copy
      assert.deepEqual(
        messages.map((message) => message.type),
        ['write', 'writeCopy'],
      );
      deliver();
      assert.equal(received.get(1), '0123456789abcdefghij');
    } finally {
      channel.dispose();
    }
  });
});
