/**
 * A program that finishes while its PTY is paused by flow control (a slow pane, a background
 * tab) must still have every byte it wrote delivered. node-pty destroys a paused PTY's socket
 * 200 ms after the process exits, so the session has to notice the exit and drain in time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestHost, person } from './ptyTestKit.ts';

test('output written just before exit is not lost while a slow subscriber holds the PTY paused', async (t) => {
  const kit = createTestHost();
  t.after(() => kit.dispose());
  // 99 000 chars stay under the 100 000-char high watermark; the next 3 000 push the subscriber
  // over it and pause the PTY; the last 2 000 are written into the paused PTY just before exit.
  const total = 99_000 + 3_000 + 2_000;
  const script = [
    'sleep 0.3',
    "head -c 99000 /dev/zero | tr '\\0' a",
    'sleep 0.2',
    "head -c 3000 /dev/zero | tr '\\0' a",
    'sleep 0.2',
    "head -c 2000 /dev/zero | tr '\\0' a",
  ].join('; ');
  const session = await kit.host.create({
    file: 'bash',
    args: ['--norc', '--noprofile', '-c', script],
    env: kit.env,
    createdBy: person,
    shellIntegration: false,
  });
  let received = 0;
  let ackTimer: NodeJS.Timeout | undefined;
  const attachment = await session.attach({
    lossless: true,
    onOutput: (data) => {
      received += data.length;
    },
  });
  t.after(() => {
    clearTimeout(ackTimer);
    attachment.dispose();
  });
  // Acknowledge everything only well after the program has exited (the renderer of a hidden tab).
  ackTimer = setTimeout(() => attachment.ack(attachment.unacknowledged), 1_500);
  const status = await session.exited;
  assert.equal(status.exitCode, 0);
  assert.equal(session.offset, total, 'every byte the program wrote reached the session');
  assert.equal(session.readRing(0).data.toString('latin1').replaceAll('a', ''), '', 'the output is the program\'s');
  // The subscriber gets all of it once it catches up.
  await new Promise<void>((resolve) => {
    const check = () => (received >= total ? resolve() : setTimeout(check, 20));
    check();
  });
  assert.equal(received, total);
});
