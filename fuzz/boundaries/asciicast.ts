/**
 * The asciicast v2 importer (src/node/history/asciicast.ts `parseCast`, what History's import
 * runs on a user's `.cast` file). Real properties: a well-formed cast parses to exactly its events
 * (markers dropped); a cast with lines cut, swapped, duplicated or replaced, or any text at all,
 * parses or is refused with ApiError INVALID_PARAMS naming a line — never another exception.
 */
import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import { isApiError } from '../../src/common/api/errors.ts';
import { parseCast } from '../../src/node/history/asciicast.ts';
import { anyJson } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimit } from '../boundary.ts';

type Event = [number, 'o' | 'i' | 'r' | 'm', string];

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.tuple(fc.constant(0), fc.constant('o' as const), fc.string({ unit: 'binary', maxLength: 30 })),
  fc.tuple(fc.constant(0), fc.constant('i' as const), fc.string({ maxLength: 5 })),
  fc.tuple(fc.constant(0), fc.constant('r' as const), fc.tuple(fc.integer({ min: 2, max: 500 }), fc.integer({ min: 1, max: 200 })).map(([cols, rows]) => `${cols}x${rows}`)),
  fc.tuple(fc.constant(0), fc.constant('m' as const), fc.string({ maxLength: 8 })),
);

const wellFormed = fc
  .record({
    header: fc.record(
      { version: fc.constant(2), width: fc.integer({ min: 2, max: 500 }), height: fc.integer({ min: 1, max: 200 }), timestamp: fc.nat(), title: fc.string({ maxLength: 10 }), env: fc.dictionary(fc.string({ maxLength: 5 }), fc.option(fc.string({ maxLength: 5 }))) },
      { requiredKeys: ['version', 'width', 'height'] },
    ),
    events: fc.array(fc.tuple(event, fc.double({ min: 0, max: 5, noNaN: true })), { maxLength: 20 }),
  })
  .map(({ header, events }) => {
    let time = 0;
    const timed = events.map(([[, code, data], step]) => {
      time += step;
      return [time, code, data] as Event;
    });
    return { header, events: timed };
  });

function castText(header: unknown, events: readonly unknown[]): string {
  return [JSON.stringify(header), ...events.map((item) => JSON.stringify(item))].join('\n') + '\n';
}

/** Lines of a cast changed a little: the paths a real broken file takes. */
const damaged = fc
  .tuple(
    wellFormed.map(({ header, events }) => castText(header, events).split('\n')),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 }), fc.oneof(anyJson(2).map((value) => JSON.stringify(value) ?? ''), fc.string({ maxLength: 20 }), fc.constantFrom('[1,"r","0x0"]', '[1,"r","99999x1"]', '[-1,"o",""]', '[1,"x",""]', '{"version":3}', '[1e999,"o",""]'))), { minLength: 1, maxLength: 3 }),
  )
  .map(([lines, edits]) => {
    for (const [where, op, text] of edits) {
      const at = where % Math.max(lines.length, 1);
      if (op === 0) lines[at] = text;
      else if (op === 1) lines.splice(at, 1);
      else if (op === 2) lines.splice(at, 0, text);
      else if (op === 3) lines[at] = (lines[at] ?? '').slice(0, Math.floor((lines[at] ?? '').length / 2));
      else [lines[0], lines[at]] = [lines[at] ?? '', lines[0] ?? ''];
    }
    return lines.join('\n');
  });

export const asciicastBoundary: FuzzBoundary = {
  name: 'asciicast',
  title: 'asciicast v2 importer (src/node/history/asciicast.ts)',
  testRuns: 3000,
  open() {
    const property = fc.property(
      fc.oneof(
        { weight: 2, arbitrary: wellFormed.map((cast) => ({ kind: 'good' as const, cast, text: castText(cast.header, cast.events) })) },
        { weight: 3, arbitrary: damaged.map((text) => ({ kind: 'damaged' as const, cast: null, text })) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }).map((text) => ({ kind: 'text' as const, cast: null, text })) },
      ),
      (input) =>
        withinTimeLimit('importing a cast', () => {
          let parsed: ReturnType<typeof parseCast>;
          try {
            parsed = parseCast(input.text);
          } catch (error) {
            if (!isApiError(error) || error.code !== 'INVALID_PARAMS' || !/^not a valid asciicast v2 file: line \d+: ./.test(error.message)) {
              throw new Error(`refused with something other than INVALID_PARAMS naming a line: ${String(error)} for ${show(input.text)}`);
            }
            if (input.kind === 'good') throw new Error(`refused a well-formed cast: ${error.message}\n${input.text.slice(0, 400)}`);
            return true;
          }
          if (input.cast) {
            const expected = input.cast.events.flatMap(([time, code, data]) => {
              if (code === 'o') return [{ kind: 'output', time, data }];
              if (code === 'i') return [{ kind: 'input', time }];
              if (code === 'r') {
                const [cols, rows] = data.split('x').map(Number);
                return [{ kind: 'resize', time, cols, rows }];
              }
              return [];
            });
            deepStrictEqual(parsed.events, expected);
          }
          return true;
        }),
    );
    return { property, dispose() {} };
  },
};
