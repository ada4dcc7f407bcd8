/**
 * The flood skip must be exact: a LazyMirror fed output in arbitrary pieces ends in the same
 * state as a plain TerminalMirror that parsed every byte — same serialized screen and
 * scrollback (text and attributes), same cursor, same modes. Every case also checks whether the
 * skip happened, so a case cannot pass by never skipping.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LazyMirror } from '../../../../src/node/pty/lazyMirror.ts';
import { TerminalMirror } from '../../../../src/node/pty/terminalMirror.ts';
import { random } from '../../../helpers/seededRandom.ts';

const cols = 40;
const rows = 8;
const scrollback = 60;
/** Small piles so that a few hundred KB of output exercise every path. */
const pileBytes = 64 * 1024;

/** Splits `bytes` into pieces of random sizes (1 byte to 8 KB), like PTY batches cut anywhere. */
function pieces(bytes: Buffer, next: () => number): Buffer[] {
  const result: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const size = 1 + Math.floor(next() * next() * 8192);
    result.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return result;
}

interface Outcome {
  serialized: string;
  cursor: [number, number];
  altScreen: boolean;
  lines: string[];
}

async function outcome(mirror: TerminalMirror | LazyMirror): Promise<Outcome> {
  const text = await mirror.readText({ scrollback: true });
  const serialized = (await mirror.snapshot()).data;
  return { serialized, cursor: [text.cursorX, text.cursorY], altScreen: text.altScreen, lines: text.lines };
}

/** Feeds `output` to a LazyMirror in random pieces and to a TerminalMirror whole; returns both outcomes and the bytes skipped. */
async function compare(output: string | Buffer, seed = 1, yields = true): Promise<{ lazy: Outcome; full: Outcome; skipped: number; acked: number; chars: number }> {
  const bytes = typeof output === 'string' ? Buffer.from(output, 'utf8') : output;
  let acked = 0;
  let chars = 0;
  const lazy = new LazyMirror(new TerminalMirror({ cols, rows, scrollback, onParsed: (count) => (acked += count) }), {
    rows,
    scrollback,
    pileBytes,
    onParsed: (count) => (acked += count),
  });
  const full = new TerminalMirror({ cols, rows, scrollback });
  try {
    const next = random(seed);
    for (const piece of pieces(bytes, next)) {
      // What the session charges: the piece's length as a string (pieces here may split a UTF-8
      // sequence, which PTY batches never do; count it as the decoder of whole batches would).
      const count = piece.toString('utf8').length;
      chars += count;
      lazy.write(piece, count);
      // Now and then give xterm (which parses on timers) a turn, as a real stream would.
      if (yields && next() < 0.05) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    full.write(bytes, bytes.length);
    const lazyOutcome = await outcome(lazy);
    return { lazy: lazyOutcome, full: await outcome(full), skipped: lazy.skippedBytes, acked, chars };
  } finally {
    lazy.dispose();
    full.dispose();
  }
}

function floodLines(count: number, line: (index: number) => string): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index++) lines.push(line(index));
  return lines.join('');
}

describe('LazyMirror flood skip', () => {
  test('a coloured build log flood: skipped, and the screen and scrollback are exact', async () => {
    const log = floodLines(6000, (index) =>
      index % 7 === 0 ? `\x1b[32m✔\x1b[0m test ${index} passed — données validées 😀\r\n` : `[${index}] compiling src/component${index}.tsx (${index * 31} bytes)\r\n`,
    );
    const { lazy, full, skipped, acked, chars } = await compare(log);
    assert.ok(skipped > log.length / 2, `skipped ${skipped} of ${log.length} bytes`);
    assert.deepEqual(lazy, full);
    assert.equal(acked, chars, 'every char is acknowledged (parsed or skipped), none twice');
  });

  test('attributes set only in the skipped part reach the lines kept (SGR replay, background colour erase)', async () => {
    const setup = '\x1b[1;4:3;58;5;196m\x1b[38;2;10;20;30m\x1b[0m\x1b[7m\x1b[27;48;5;33m\x1b[59m\x1b[3m';
    const flood = floodLines(4000, (index) => `${index === 10 ? setup : ''}line ${index} of plain output\r\n`);
    const { lazy, full, skipped } = await compare(flood);
    assert.ok(skipped > 0);
    assert.deepEqual(lazy, full);
    assert.match(full.serialized, /\x1b\[/, 'the kept lines carry attributes');
  });

  test('random SGR sequences in the skipped part give the same final attributes', async () => {
    const next = random(7);
    const choices = ['0', '1', '2', '3', '4', '4:2', '4:3', '5', '7', '8', '9', '21', '22', '23', '24', '27', '28', '29', '31', '39', '42', '49', '53', '55', '58;5;9', '58;2;1;2;3', '59', '91', '101', '38;5;200', '48;2;9;9;9', '', '0:3', ':3', '00'];
    const flood = floodLines(3000, (index) => {
      if (index > 2500) return `tail ${index}\r\n`;
      const sgr = Array.from({ length: 1 + Math.floor(next() * 3) }, () => choices[Math.floor(next() * choices.length)]).join(';');
      return `\x1b[${sgr}m${index}\x1b[${choices[Math.floor(next() * choices.length)]}m x\r\n`;
    });
    for (const seed of [1, 2, 3]) {
      const { lazy, full, skipped } = await compare(flood, seed);
      assert.ok(skipped > 0);
      assert.deepEqual(lazy, full, `seed ${seed}`);
    }
  });

  test('long wrapping lines, tabs, CR progress lines, wide characters and in-line CSI', async () => {
    const flood = floodLines(3000, (index) =>
      index % 5 === 0
        ? `${'wrap-'.repeat(17)}${index}\r\n`
        : index % 5 === 1
          ? `\tcol\t${index}\t漢字🙂\r\n`
          : index % 5 === 2
            ? `progress 10%\rprogress 50%\rprogress ${index}%\r\n`
            : `\x1b[2K\x1b[5Gmoved\x1b[3C\x1b[2D\x1b[4X ${index}\x1b[K\r\n`,
    );
    const { lazy, full, skipped } = await compare(flood);
    assert.ok(skipped > 0);
    assert.deepEqual(lazy, full);
  });

  test('non-plain output in the middle of a flood (cursor up, OSC, DECSET) is parsed, the floods around it are still skipped', async () => {
    const part = (from: number) => floodLines(2500, (index) => `row ${from + index} ........................\r\n`);
    const flood = `${part(0)}\x1b]0;title\x07\x1b[3A\x1b[?25lup three\r\n\x1b[?1h${part(3000)}\x1b[5;1Hhome-ish\r\n${part(6000)}`;
    const { lazy, full, skipped } = await compare(flood);
    assert.ok(skipped > 0);
    assert.deepEqual(lazy, full);
  });

  test('a scroll region keeps rows the skip would assume gone: nothing is skipped inside it', async () => {
    const flood = `\x1b[2;6r${floodLines(12000, (index) => `scrolling inside a region ${index}\r\n`)}`;
    const { lazy, full, skipped } = await compare(flood);
    assert.equal(skipped, 0);
    assert.deepEqual(lazy, full);
  });

  test('a flood that starts in the middle of an escape sequence is not skipped from there', async () => {
    const lazy = new LazyMirror(new TerminalMirror({ cols, rows, scrollback }), { rows, scrollback, pileBytes });
    const full = new TerminalMirror({ cols, rows, scrollback });
    try {
      const head = Buffer.from('before\r\n\x1b[3');
      lazy.write(head, head.length);
      full.write(head, head.length);
      // The mirror parses what waited: it now sits inside the CSI sequence.
      assert.deepEqual(await lazy.readText(), await full.readText());
      // "1m" completes ESC[31m (red); a skip from here would take it for text.
      const flood = Buffer.from(`1m${floodLines(4000, (index) => `red line ${index}\r\n`)}`);
      for (let offset = 0; offset < flood.length; offset += 4096) {
        lazy.write(flood.subarray(offset, offset + 4096), Math.min(4096, flood.length - offset));
        full.write(flood.subarray(offset, offset + 4096), Math.min(4096, flood.length - offset));
      }
      assert.deepEqual(await lazy.snapshot(), await full.snapshot());
      assert.match((await full.snapshot()).data, /31m/);
    } finally {
      lazy.dispose();
      full.dispose();
    }
  });

  test('the alternate screen during a flood', async () => {
    const flood = `\x1b[?1049h${floodLines(4000, (index) => `alt ${index}\r\n`)}\x1b[?1049lback\r\n`;
    const { lazy, full } = await compare(flood);
    assert.deepEqual(lazy, full);
  });

  test('bare LF without CR, invalid UTF-8 and C1 controls end or shorten runs but stay exact', async () => {
    const flood = Buffer.concat([
      Buffer.from(floodLines(3000, (index) => `lf only ${index}\n`)),
      Buffer.from([0xff, 0xfe, 0xc2, 0x9b, 0x33, 0x31, 0x6d]), // invalid bytes, then C1 CSI 31m
      Buffer.from(floodLines(3000, (index) => `after ${index}\r\n`)),
    ]);
    const { lazy, full } = await compare(flood);
    assert.deepEqual(lazy, full);
  });

  test('a resize, a read or a snapshot in the middle sees exactly the output written before it', async () => {
    const lazy = new LazyMirror(new TerminalMirror({ cols, rows, scrollback }), { rows, scrollback, pileBytes });
    const full = new TerminalMirror({ cols, rows, scrollback });
    try {
      const first = Buffer.from(floodLines(4000, (index) => `before ${index}\r\n`));
      lazy.write(first, first.length);
      full.write(first, first.length);
      assert.deepEqual(await lazy.readText(), await full.readText());
      lazy.resize(50, 6);
      full.resize(50, 6);
      const second = Buffer.from(floodLines(4000, (index) => `after resize ${index} ${'x'.repeat(index % 70)}\r\n`));
      lazy.write(second, second.length);
      full.write(second, second.length);
      assert.deepEqual(await lazy.snapshot(), await full.snapshot());
      assert.ok(lazy.skippedBytes > 0);
    } finally {
      lazy.dispose();
      full.dispose();
    }
  });

  test('output written faster than the mirror parses, several flood-sized piles in a row: no pile is reused before it was parsed', async () => {
    // Cursor addressing in every line: nothing can be skipped, every pile goes to the mirror whole,
    // and without yielding to the mirror's timers several piles wait for it at once.
    const output = floodLines(24_000, (index) => `\x1b[${1 + (index % rows)};${1 + (index % 7)}H\x1b[3${index % 8}mrow ${index} of a redraw\x1b[0m\x1b[K`);
    assert.ok(Buffer.byteLength(output) > 6 * pileBytes);
    const { lazy, full, skipped } = await compare(output, 7, false);
    assert.equal(skipped, 0);
    assert.deepEqual(lazy, full);
  });

  test('a stream that arrives in steps shorter than quietMs is still one flood (the worker channel posts every 50 ms)', async () => {
    const log = floodLines(8000, (index) => `[${index}] \x1b[36mlinking\x1b[0m target/debug/deps/crate${index}.rlib\r\n`);
    const bytes = Buffer.from(log);
    const step = Math.ceil(bytes.length / 24);
    /** Feeds the log in 24 steps 20 ms apart; returns the skipped bytes once everything is parsed, and the outcome. */
    const feed = async (quiet: number) => {
      const lazy = new LazyMirror(new TerminalMirror({ cols, rows, scrollback }), { rows, scrollback, pileBytes, quietMs: quiet });
      try {
        for (let offset = 0; offset < bytes.length; offset += step) {
          const piece = bytes.subarray(offset, offset + step);
          lazy.write(piece, piece.length);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return { skipped: lazy.skippedBytes, outcome: await outcome(lazy) };
      } finally {
        lazy.dispose();
      }
    };
    const full = new TerminalMirror({ cols, rows, scrollback });
    full.write(bytes, bytes.length);
    const expected = await outcome(full);
    full.dispose();
    const patient = await feed(200);
    const hasty = await feed(5);
    assert.deepEqual(patient.outcome, expected);
    assert.deepEqual(hasty.outcome, expected);
    // Each pause a mirror takes for the end of output costs it a full parse of the lines it keeps.
    assert.ok(patient.skipped > bytes.length * 0.8, `steps shorter than quietMs: skipped ${patient.skipped} of ${bytes.length}`);
    assert.ok(hasty.skipped < patient.skipped, `steps longer than quietMs skip less (${hasty.skipped} vs ${patient.skipped})`);
  });

  test('output that stops is parsed within quietMs without anyone asking', async () => {
    let parsed = 0;
    const lazy = new LazyMirror(new TerminalMirror({ cols, rows, scrollback, onParsed: (count) => (parsed += count) }), { rows, scrollback, pileBytes });
    try {
      lazy.write(Buffer.from('hello'), 5);
      assert.equal(parsed, 0, 'it waits first');
      const deadline = Date.now() + 2000;
      while (parsed < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(parsed, 5);
    } finally {
      lazy.dispose();
    }
  });
});
