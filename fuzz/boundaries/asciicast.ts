/**
 * The asciicast v2 importer: `parseCast` (src/node/history/asciicast.ts) and History's
 * `importCast` into a real SQLite History (src/node/history/historyService.ts), what the app runs
 * on a user's `.cast` file. Real properties: a well-formed cast parses to exactly its events
 * (markers dropped); a cast with lines cut, swapped, duplicated or replaced, or any text at all,
 * parses or is refused with ApiError INVALID_PARAMS naming a line — never another exception; a
 * cast that parses imports, and the session it makes can be listed, read, exported as text and
 * as a cast that parses again with the same output.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { defaultSettings } from '../../src/common/api/contract.ts';
import { isApiError } from '../../src/common/api/errors.ts';
import { parseCast } from '../../src/node/history/asciicast.ts';
import { HistoryConstants } from '../../src/node/history/historyConstants.ts';
import { HistoryService } from '../../src/node/history/historyService.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
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
      { version: fc.constant(2), width: fc.integer({ min: 2, max: 500 }), height: fc.integer({ min: 1, max: 200 }), timestamp: fc.oneof(fc.nat(), fc.double({ min: 0, max: HistoryConstants.castMaxTimestampSeconds, noNaN: true })), duration: fc.double({ min: 0, max: HistoryConstants.castMaxTimeSeconds, noNaN: true }), idle_time_limit: fc.double({ noNaN: true, noDefaultInfinity: true }), title: fc.string({ maxLength: 10 }), env: fc.dictionary(fc.string({ maxLength: 5 }), fc.option(fc.string({ maxLength: 5 }))) },
      { requiredKeys: ['version', 'width', 'height'] },
    ),
    events: fc.array(fc.tuple(event, fc.oneof({ weight: 9, arbitrary: fc.double({ min: 0, max: 5, noNaN: true }) }, { weight: 1, arbitrary: fc.double({ min: 0, max: HistoryConstants.castMaxTimeSeconds / 20, noNaN: true }) })), { maxLength: 20 }),
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
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 }), fc.oneof(anyJson(2).map((value) => JSON.stringify(value) ?? ''), fc.string({ maxLength: 20 }), fc.constantFrom('[1,"r","0x0"]', '[1,"r","99999x1"]', '[-1,"o",""]', '[1,"x",""]', '{"version":3}', '[1e999,"o",""]', '[1e15,"o","x"]', '[3155760001,"i",""]', '{"version":2,"width":2,"height":1,"timestamp":1e16}', '{"version":2,"width":2,"height":1,"duration":1e300}'))), { minLength: 1, maxLength: 3 }),
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
  title: 'asciicast v2 importer, into a real SQLite History (src/node/history/asciicast.ts, historyService.ts)',
  testRuns: 2000,
  // Each input that parses is imported into SQLite, listed, read and exported.
  fullRuns: 200_000,
  open() {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-fuzz-cast-'));
    const ptyHost = new PtyHost({ logger: nullLogger, defaultCwd: dataDir, mirrorMode: 'inline' });
    const history = new HistoryService({ dataDir, ptyHost, settings: () => defaultSettings, logger: nullLogger });
    history.start();
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
          importAndExport(history, input.text);
          return true;
        }),
    );
    return {
      property,
      dispose() {
        history.dispose();
        ptyHost.dispose();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

/** A cast that parsed goes into History, and comes out again as text and as a cast that parses to the same output. */
function importAndExport(history: HistoryService, text: string): void {
  const session = history.importCast('fuzz.cast', text, { kind: 'person', name: 'fuzz' });
  try {
    if (!history.get(session.id)) throw new Error(`the imported session ${session.id} is not in History`);
    history.list({});
    const output = (history.read(session.id, 0, 1 << 20)?.data ?? Buffer.alloc(0)).toString('utf8');
    history.exportSession(session.id, 'text');
    const exported = history.exportSession(session.id, 'cast');
    const again = parseCast(exported.contents);
    const exportedOutput = again.events.flatMap((item) => (item.kind === 'output' ? [item.data] : [])).join('');
    if (exportedOutput !== output) throw new Error(`the exported cast's output ${show(exportedOutput)} is not the session's ${show(output)}`);
  } finally {
    history.delete([session.id]);
  }
}
