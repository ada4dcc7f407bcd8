/**
 * The control socket's NDJSON framer (src/node/control/lineFramer.ts). Real property: the same
 * bytes split at any points give the same lines as a plain split on `\n` would, and the framer
 * overflows exactly when one line (complete or still open) is longer than its limit — after
 * handing over every line before that one and none after.
 */
import fc from 'fast-check';
import { LineFramer } from '../../src/node/control/lineFramer.ts';
import { type FuzzBoundary, show, withinTimeLimit } from '../boundary.ts';
import { byteStream, cutPoints } from '../arbitraries.ts';

interface Expected {
  lines: string[];
  overflow: boolean;
  pendingBytes: number;
}

/** The reference: split the whole stream at once. */
function expectedFraming(bytes: Buffer, maxLineBytes: number): Expected {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) break;
    if (newline - start > maxLineBytes) return { lines, overflow: true, pendingBytes: 0 };
    lines.push(bytes.toString('utf8', start, newline));
    start = newline + 1;
  }
  const rest = bytes.length - start;
  if (rest > maxLineBytes) return { lines, overflow: true, pendingBytes: 0 };
  return { lines, overflow: false, pendingBytes: rest };
}

function frame(chunks: Buffer[], maxLineBytes: number): Expected {
  const lines: string[] = [];
  const framer = new LineFramer(maxLineBytes, (line) => lines.push(line));
  let overflow = false;
  for (const chunk of chunks) {
    if (framer.push(chunk) === 'overflow') {
      overflow = true;
      break;
    }
  }
  return { lines, overflow, pendingBytes: overflow ? 0 : framer.pendingBytes };
}

export const lineFramerBoundary: FuzzBoundary = {
  name: 'line-framer',
  title: 'NDJSON line framer (src/node/control/lineFramer.ts)',
  testRuns: 4000,
  open() {
    const property = fc.property(byteStream(), cutPoints(), fc.oneof(fc.integer({ min: 0, max: 80 }), fc.constant(1 << 20)), (bytes, cuts, maxLineBytes) =>
      withinTimeLimit('framing', () => {
        const expected = expectedFraming(bytes, maxLineBytes);
        const whole = frame([bytes], maxLineBytes);
        const split = frame(splitAt(bytes, cuts), maxLineBytes);
        for (const [how, got] of [['in one chunk', whole], [`split at ${show(cuts)}`, split]] as const) {
          if (got.overflow !== expected.overflow) throw new Error(`${how}: overflow ${got.overflow}, expected ${expected.overflow}`);
          if (got.lines.length !== expected.lines.length || got.lines.some((line, index) => line !== expected.lines[index])) {
            throw new Error(`${how}: lines ${show(got.lines)}, expected ${show(expected.lines)}`);
          }
          if (got.pendingBytes !== expected.pendingBytes) throw new Error(`${how}: ${got.pendingBytes} bytes pending, expected ${expected.pendingBytes}`);
        }
        return true;
      }),
    );
    return { property, dispose() {} };
  },
};

/** The bytes cut at the given fractions of their length (duplicates give empty chunks: also real). */
export function splitAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = cuts.map((cut) => Math.floor(cut * bytes.length)).sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let previous = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(previous, point));
    previous = point;
  }
  chunks.push(bytes.subarray(previous));
  return chunks;
}
