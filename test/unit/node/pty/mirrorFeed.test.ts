/**
 * The mirror feed with a real in-process `@xterm/headless` mirror and a real output ring: a flood
 * faster than the mirror parses makes it skip ahead, and once it catches up its screen — text,
 * cursor, alternate screen, bracketed paste — is what a terminal that parsed every byte shows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FlowController } from '../../../../src/node/pty/flowControl.ts';
import { MirrorFeed, modesSetIn } from '../../../../src/node/pty/mirrorFeed.ts';
import { OutputRing } from '../../../../src/node/pty/outputRing.ts';
import { TerminalMirror } from '../../../../src/node/pty/terminalMirror.ts';
import { pollUntil } from '../../../helpers/poll.ts';

const cols = 80;
const rows = 24;

function makeFeed(options: { skipAboveChars: number }) {
  const ring = new OutputRing(4 * 1024 * 1024);
  const flow = new FlowController({ highWatermark: 100, lowWatermark: 10, pause: () => assert.fail('the mirror must never pause the PTY'), resume: () => {} });
  const account = flow.open(false);
  let feed!: MirrorFeed;
  const mirror = new TerminalMirror({ cols, rows, scrollback: 1000, onParsed: (chars) => feed.parsed(chars) });
  feed = new MirrorFeed({
    mirror,
    account,
    readRing: (from) => {
      const read = ring.read(from);
      return { data: read.data, start: read.startOffset };
    },
    skipAboveChars: options.skipAboveChars,
    resyncBelowChars: Math.floor(options.skipAboveChars / 10),
    resyncTailBytes: 16 * 1024,
  });
  let offset = 0;
  return {
    feed,
    mirror,
    account,
    /** Output as the PTY session delivers it: into the ring, then to the feed, one batch at a time. */
    produce(text: string) {
      const bytes = Buffer.from(text, 'utf8');
      ring.write(bytes);
      feed.write(text, bytes, offset, offset + bytes.length);
      offset += bytes.length;
    },
    dispose: () => mirror.dispose(),
  };
}

/** What a terminal that parsed every byte shows. */
async function reference(stream: string[], options: { scrollback?: boolean } = {}) {
  const mirror = new TerminalMirror({ cols, rows, scrollback: 1000 });
  for (const text of stream) mirror.write(text);
  const screen = await mirror.readText(options);
  mirror.dispose();
  return screen;
}

function floodBatches(lines: number, prefix = 'line'): string[] {
  const batches: string[] = [];
  for (let start = 0; start < lines; start += 200) {
    let batch = '';
    for (let index = start; index < Math.min(lines, start + 200); index++) batch += `\x1b[3${index % 8}m${prefix} ${index} ${'·'.repeat(index % 50)}\x1b[0m\r\n`;
    batches.push(batch);
  }
  return batches;
}

describe('MirrorFeed', () => {
  it('skips ahead under a flood and ends with the screen of a mirror that parsed everything', async () => {
    const stream = [...floodBatches(30_000), 'last words $ '];
    const t = makeFeed({ skipAboveChars: 50_000 });
    try {
      for (const batch of stream) t.produce(batch);
      assert.ok(t.feed.skipping, 'the mirror fell behind and stopped being fed');
      await pollUntil(() => !t.feed.skipping, { what: 'the mirror to catch up' });
      const [got, want] = await Promise.all([t.mirror.readText(), reference(stream)]);
      assert.deepEqual(got.lines, want.lines);
      assert.deepEqual([got.cursorX, got.cursorY], [want.cursorX, want.cursorY]);
      assert.ok(t.feed.skips >= 1);
    } finally {
      t.dispose();
    }
  });

  it('replays the modes the skipped output switched: alternate screen and bracketed paste', async () => {
    const stream = [...floodBatches(10_000), '\x1b[?2004h\x1b[?1049h\x1b[H\x1b[2J', ...floodBatches(3_000, 'tui'), '\x1b[Hheader of the full-screen program\r\n'];
    const t = makeFeed({ skipAboveChars: 20_000 });
    try {
      for (const batch of stream) t.produce(batch);
      t.feed.catchUp(); // as an attach or readScreen does
      const [got, want] = await Promise.all([t.mirror.readText(), reference(stream)]);
      assert.equal(got.altScreen, true);
      assert.equal(got.bracketedPaste, true);
      assert.deepEqual(got.lines, want.lines);
    } finally {
      t.dispose();
    }
  });

  it('feeds everything, and never skips, when the mirror keeps up', async () => {
    const t = makeFeed({ skipAboveChars: 10_000_000 });
    try {
      const stream = floodBatches(2_000);
      for (const batch of stream) t.produce(batch);
      const [got, want] = await Promise.all([t.mirror.readText({ scrollback: true }), reference(stream, { scrollback: true })]);
      assert.equal(t.feed.skips, 0);
      assert.deepEqual(got.lines, want.lines, 'scrollback too');
    } finally {
      t.dispose();
    }
  });
});

describe('modesSetIn', () => {
  it('keeps the last setting of each mode, in stream order', () => {
    const skipped = Buffer.from('\x1b[?1049h text \x1b[?2004h more \x1b[?1049l \x1b[?25l x \x1b[?1049h', 'latin1');
    assert.equal(modesSetIn(skipped), '\x1b[?2004h\x1b[?25l\x1b[?1049h');
    assert.equal(modesSetIn(Buffer.from('plain text\r\n')), '');
    // ?1h is not a prefix match of ?1049h, nor ?47h of ?1047h.
    assert.equal(modesSetIn(Buffer.from('\x1b[?1047h', 'latin1')), '\x1b[?1047h');
  });
});
