/**
 * One viewer's stream of one real terminal: bounded backlog, skip-ahead with a fresh snapshot, and
 * the seq rules. The link is played by a sink the test drains by hand (that is the point: a viewer
 * that does not read), the terminal is a real PTY with its mirror.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope } from '../../../src/common/protocol/relay/envelope.ts';
import type { RelayMessage } from '../../../src/common/protocol/relay/messages.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { PtyHost } from '../../../src/node/pty/ptyHost.ts';
import type { OutputSource } from '../../../src/node/relay/relayConnection.ts';
import { ViewerStreams } from '../../../src/node/relay/viewerStreams.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { screenOf } from './relayTestKit.ts';

/** A link that writes only when the test says so. */
class ManualSink {
  readonly ready = new Set<OutputSource>();
  markReady(source: OutputSource): void {
    this.ready.add(source);
  }
  forget(source: OutputSource): void {
    this.ready.delete(source);
  }
  drain(): RelayMessage[] {
    const frames: RelayMessage[] = [];
    for (let progress = true; progress; ) {
      progress = false;
      for (const source of [...this.ready]) {
        const frame = source.nextFrame();
        if (frame === undefined) {
          this.ready.delete(source);
          continue;
        }
        progress = true;
        assert.equal(typeof frame, 'string', 'a viewer stream sends text frames');
        const parsed = parseEnvelope(frame as string);
        assert.ok(parsed.ok, 'every frame a stream makes is valid');
        frames.push(parsed.message);
      }
    }
    return frames;
  }
}

describe('viewer stream of a real terminal', () => {
  let temp: ReturnType<typeof createTempHome>;
  let host: PtyHost;

  before(() => {
    temp = createTempHome('sb-stream-');
    host = new PtyHost({ logger: nullLogger, defaultCwd: temp.workspace });
  });
  after(() => {
    host.dispose();
    temp.dispose();
  });

  it('skips a viewer that does not read ahead with a snapshot, then continues exactly from it', async () => {
    const session = await host.create({ file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false, cols: 80, rows: 24, createdBy: { kind: 'person', name: 't' } });
    const sink = new ManualSink();
    const streams = new ViewerStreams({ sink, logger: nullLogger, bufferBytes: 64 * 1024 });
    try {
      const stream = streams.open(session, { terminalId: session.id, sessionId: 's', channelId: 'c', from: 'snapshot' });
      await pollUntil(() => sink.ready.size > 0, { what: 'initial snapshot ready' });
      const frames = sink.drain();
      assert.equal(frames[0]?.type, 'terminalSnapshot');
      assert.equal(frames[0]?.type === 'terminalSnapshot' && frames[0].seq, 0);

      // ~1 MB of output while nobody reads: far past the 64 KiB bound.
      session.write('for i in $(seq 1 20000); do echo "line $i of the flood"; done; echo FLOOD-DONE\r');
      let maxBacklog = 0;
      await pollUntil(
        async () => {
          maxBacklog = Math.max(maxBacklog, stream.pendingBytes);
          return (await session.readScreen()).lines.some((line) => line === 'FLOOD-DONE');
        },
        { timeoutMs: 60_000, intervalMs: 5, what: 'the flood to finish' },
      );
      assert.ok(maxBacklog <= 64 * 1024, `backlog ${maxBacklog} stayed bounded`);
      assert.ok(stream.skips >= 1, 'the viewer was skipped ahead');

      // The viewer reads again: a fresh snapshot, then output from exactly there.
      let localScreen: string[] = [];
      let viewerScreen: string[] = [];
      await pollUntil(
        async () => {
          frames.push(...sink.drain());
          localScreen = (await session.readScreen()).lines;
          viewerScreen = await screenOf(replayText(frames), 80, 24);
          return JSON.stringify(viewerScreen) === JSON.stringify(localScreen);
        },
        { timeoutMs: 30_000, what: 'the viewer to catch up' },
      ).catch(() => assert.deepEqual(viewerScreen, localScreen, 'the viewer shows exactly the pane'));
      const snapshots = frames.filter((frame) => frame.type === 'terminalSnapshot');
      assert.ok(snapshots.length >= 2, 'a second snapshot after falling behind');
      assertSeqRules(frames);
    } finally {
      streams.dispose();
      await host.close(session.id);
    }
  });

  it('sends a new terminal from its first byte in frames of at most 8 KiB, then the exit after the last output', async () => {
    const session = await host.create({ file: 'bash', args: ['--norc', '--noprofile', '-c', 'head -c 30000 /dev/zero | tr "\\0" "x"; exit 7'], shellIntegration: false, createdBy: { kind: 'remote', name: 't' } });
    const sink = new ManualSink();
    const streams = new ViewerStreams({ sink, logger: nullLogger });
    try {
      streams.open(session, { terminalId: session.id, sessionId: 's', channelId: 'c', from: 'beginning' });
      const status = await session.exited;
      streams.endTerminal(session.id, () => JSON.stringify({ type: 'terminalExit', terminalId: session.id, sessionId: 's', channelId: 'c', exitCode: status.exitCode, reason: 'process_exit', endedAt: '2026-01-01T00:00:00Z' }));
      const frames = sink.drain();
      assert.equal(frames.at(-1)?.type, 'terminalExit');
      const outputs = frames.filter((frame) => frame.type === 'terminalOutput');
      assert.ok(outputs.length >= 4);
      for (const frame of outputs) assert.ok(frame.type === 'terminalOutput' && Buffer.from(frame.dataBase64, 'base64').length <= 8192);
      assertSeqRules(frames);
      assert.equal(replayText(frames), 'x'.repeat(30000));
    } finally {
      streams.dispose();
      await host.close(session.id);
    }
  });
});

/** The bytes a viewer would write into its terminal: each snapshot resets, outputs append. */
function replayText(frames: RelayMessage[]): string {
  let text = '';
  for (const frame of frames) {
    if (frame.type === 'terminalSnapshot') text = Buffer.from(frame.dataBase64, 'base64').toString('utf8');
    else if (frame.type === 'terminalOutput') text += Buffer.from(frame.dataBase64, 'base64').toString('utf8');
  }
  return text;
}

/** seq: outputs count up by one from 1; a snapshot carries the seq of the last output before it. */
function assertSeqRules(frames: RelayMessage[]): void {
  let last = 0;
  for (const frame of frames) {
    if (frame.type === 'terminalOutput') {
      assert.equal(frame.seq, last + 1, 'output seq increases by one');
      last = frame.seq;
    } else if (frame.type === 'terminalSnapshot') {
      assert.equal(frame.seq, last, 'a snapshot is "as of" the last seq');
    }
  }
}
