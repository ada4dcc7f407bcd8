/**
 * What the Hub reads out of a terminal's output stream:
 * - `osc`: the OSC scanner (src/common/terminal/oscParser.ts) and the marks it feeds
 *   (terminalMarks.ts: OSC 633, 133, 7, 9, 777). Real properties: the same text split at any
 *   points gives the same OSC payloads and bells at the same absolute positions (also with a tiny
 *   payload cap); every payload parses to a mark or null without throwing; a command line or cwd
 *   escaped the way our shell scripts escape it comes back unchanged.
 * - `utf8-batcher`: the PTY output batcher (src/node/pty/outputBatcher.ts). Real properties:
 *   whatever the chunking and the batch size, the batches concatenate to exactly the input bytes;
 *   every batch but the last ends on a UTF-8 boundary, so decoding batch by batch gives the same
 *   string as decoding the whole; a batch is never larger than maxBytes.
 */
import fc from 'fast-check';
import { OscParser } from '../../src/common/terminal/oscParser.ts';
import { escapeVsCodeValue, parseTerminalMark } from '../../src/common/terminal/terminalMarks.ts';
import { OutputBatcher } from '../../src/node/pty/outputBatcher.ts';
import { byteStream, cutPoints } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimit } from '../boundary.ts';
import { splitAt } from './lineFramer.ts';

const oscPieces = [
  '\x1b]',
  '\x07',
  '\x1b\\',
  '\x1b',
  '\x1b[0m',
  '\x1bP',
  '\x1b_',
  '\x1b^',
  '\x1bX',
  '633;A;n0nce',
  '633;B',
  '633;C',
  '633;D;0',
  '633;D;-1;n0nce',
  '633;E;ls\\x3b -la;n0nce',
  '633;P;Cwd=/tmp/a\\x3bb',
  '133;A',
  '133;D;130',
  '7;file://host/tmp/%C3%A9',
  '7;file:///',
  '7;file://%zz',
  '9;9;/tmp',
  '9;hello',
  '777;notify;title;body',
  ';',
  '\\',
  'é',
  '😀',
];

const piece = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...oscPieces) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) });
/** Whole sequences (introducer, payload, terminator) among loose pieces. */
const sequence = fc
  .tuple(fc.constantFrom('\x1b]', '\x1bP', '\x1b_'), fc.array(piece, { maxLength: 3 }), fc.constantFrom('\x07', '\x1b\\', ''))
  .map(([start, payload, end]) => start + payload.join('').replace(/[\x07\x1b]/g, '') + end);
const terminalText = fc.array(fc.oneof(piece, sequence), { maxLength: 16 }).map((pieces) => pieces.join(''));

type OscEvent = string;

function scan(chunks: readonly string[], maxPayloadChars: number | undefined): OscEvent[] {
  const events: OscEvent[] = [];
  let offset = 0;
  const parser = new OscParser(
    {
      onOsc: (payload, endIndex, terminatorLength) => {
        events.push(`osc@${offset + endIndex}/${terminatorLength}:${payload}`);
        parseTerminalMark(payload);
      },
      onBell: (index) => events.push(`bel@${offset + index}`),
    },
    maxPayloadChars === undefined ? {} : { maxPayloadChars },
  );
  for (const chunk of chunks) {
    parser.feed(chunk);
    offset += chunk.length;
  }
  return events;
}

function splitText(text: string, cuts: readonly number[]): string[] {
  const points = cuts.map((cut) => Math.floor(cut * text.length)).sort((a, b) => a - b);
  const chunks: string[] = [];
  let previous = 0;
  for (const point of points) {
    chunks.push(text.slice(previous, point));
    previous = point;
  }
  chunks.push(text.slice(previous));
  return chunks;
}

export const oscBoundary: FuzzBoundary = {
  name: 'osc',
  title: 'OSC 633/133/7 scanner and marks (src/common/terminal/oscParser.ts, terminalMarks.ts)',
  testRuns: 4000,
  open() {
    const property = fc.property(
      terminalText,
      cutPoints(),
      fc.option(fc.integer({ min: 1, max: 24 }), { nil: undefined }),
      fc.string({ unit: 'binary', maxLength: 24 }),
      fc.stringMatching(/^[A-Za-z0-9]{0,12}$/),
      (text, cuts, maxPayloadChars, value, nonce) =>
        withinTimeLimit('scanning terminal output', () => {
          const whole = scan([text], maxPayloadChars);
          const split = scan(splitText(text, cuts), maxPayloadChars);
          if (whole.join('\n') !== split.join('\n')) throw new Error(`split at ${show(cuts)}: ${show(split)}, in one piece: ${show(whole)}`);
          const byChar = scan([...text], maxPayloadChars);
          if (whole.join('\n') !== byChar.join('\n')) throw new Error(`fed one character at a time: ${show(byChar)}, in one piece: ${show(whole)}`);
          // Our scripts' escaping survives the scanner and the mark parser, whatever the value.
          const escaped = escapeVsCodeValue(value);
          const events = scan([`\x1b]633;E;${escaped};${nonce}\x07\x1b]633;P;Cwd=${escaped}\x1b\\`], undefined);
          const payloads = events.map((event) => event.slice(event.indexOf(':') + 1));
          const commandLine = parseTerminalMark(payloads[0] ?? '');
          if (commandLine?.kind !== 'commandLine' || commandLine.commandLine !== value || commandLine.nonce !== (nonce === '' ? commandLine.nonce : nonce)) {
            throw new Error(`633;E of ${show(value)} came back as ${show(commandLine)}`);
          }
          const cwd = parseTerminalMark(payloads[1] ?? '');
          if (value.length > 0 ? cwd?.kind !== 'cwd' || cwd.cwd !== value : cwd !== null) throw new Error(`633;P;Cwd of ${show(value)} came back as ${show(cwd)}`);
          return true;
        }),
    );
    return { property, dispose() {} };
  },
};

export const utf8BatcherBoundary: FuzzBoundary = {
  name: 'utf8-batcher',
  title: 'UTF-8-safe PTY output batcher (src/node/pty/outputBatcher.ts, src/common/terminal/utf8Boundaries.ts)',
  testRuns: 4000,
  open() {
    const property = fc.property(
      fc.oneof(byteStream(24), fc.string({ unit: 'grapheme', maxLength: 80 }).map((text) => Buffer.from(text, 'utf8'))),
      cutPoints(12),
      fc.integer({ min: 8, max: 40 }),
      fc.array(fc.boolean(), { maxLength: 13 }),
      (bytes, cuts, maxBytes, flushes) =>
        withinTimeLimit('batching output', () => {
          const batches: Buffer[] = [];
          const batcher = new OutputBatcher({ maxBytes, maxDelayMs: 1_000_000, onBatch: (batch) => batches.push(Buffer.from(batch)), now: () => 0 });
          try {
            splitAt(bytes, cuts).forEach((chunk, index) => {
              batcher.push(chunk);
              if (flushes[index]) batcher.flush();
            });
            batcher.end();
          } finally {
            batcher.dispose();
          }
          const joined = Buffer.concat(batches);
          if (!joined.equals(bytes)) throw new Error(`batches ${show(batches.map((batch) => batch.toString('hex')))} do not make up ${bytes.toString('hex')}`);
          if (batches.some((batch) => batch.length > maxBytes)) throw new Error(`a batch larger than ${maxBytes} bytes`);
          const decoded = batches.map((batch) => new TextDecoder().decode(batch)).join('');
          const expected = new TextDecoder().decode(bytes);
          if (decoded !== expected) throw new Error(`decoded batch by batch ${show(decoded)}, whole ${show(expected)} (bytes ${bytes.toString('hex')}, batches ${show(batches.map((batch) => batch.toString('hex')))})`);
          return true;
        }),
    );
    return { property, dispose() {} };
  },
};
