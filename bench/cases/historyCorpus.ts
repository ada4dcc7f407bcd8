/**
 * Generated terminal output for the History benchmarks: build-log-like lines (timestamps, SGR
 * colours, paths, some UTF-8) over a fixed vocabulary whose words occur with Zipf-like
 * frequencies, so searches hit common, medium and rare words. Deterministic for a seed.
 */
import type { HistoryStore, SessionWrites } from '../../src/node/history/historyStore.ts';
import { newSessionId } from '../../src/node/history/historyStore.ts';
import { random } from '../../test/helpers/seededRandom.ts';

// The benchmarks' cases take their PRNG from here.
export { random };

const syllables = ['ka', 'lo', 'mi', 'ra', 'te', 'vu', 'zen', 'dor', 'phi', 'qua', 'sil', 'bre', 'gno', 'wex', 'yum', 'tor'];

/** The vocabulary: `size` pseudo-words, index 0 the most common. */
export function vocabulary(size: number): string[] {
  const words: string[] = [];
  const next = random(7);
  const seen = new Set<string>();
  while (words.length < size) {
    const count = 2 + Math.floor(next() * 3);
    let word = '';
    for (let index = 0; index < count; index++) word += syllables[Math.floor(next() * syllables.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

export const benchVocabulary = vocabulary(20_000);

/** A word drawn with a Zipf-like distribution (rank r has weight ~1/r). */
function zipfWord(next: () => number): string {
  const rank = Math.floor(Math.exp(next() * Math.log(benchVocabulary.length)));
  return benchVocabulary[Math.min(benchVocabulary.length - 1, rank - 1)]!;
}

/** About `size` bytes of build-log-like output (CRLF line ends, as a PTY delivers them). */
export function buildLogText(size: number, seed: number): string {
  const next = random(seed);
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < size; index++) {
    const words = `${zipfWord(next)} ${zipfWord(next)} ${zipfWord(next)} ${zipfWord(next)}`;
    const line =
      index % 7 === 0
        ? `\x1b[32m✔\x1b[0m test ${words} passed in ${index % 97} ms — données validées\r\n`
        : index % 13 === 0
          ? `\x1b[1;31merror\x1b[0m: src/${zipfWord(next)}/file${index % 500}.ts:${index % 400}:${index % 80} ${words}\r\n`
          : `[${String(index).padStart(8, '0')}] compiling src/${zipfWord(next)}/${words.replace(/ /g, '_')}.tsx ${words} (${(index * 31) % 10007} bytes)\r\n`;
    lines.push(line);
    length += Buffer.byteLength(line);
  }
  return lines.join('');
}

/** A finished session of `text`, cut into chunks as a flood is recorded. */
export function sessionWrites(text: Buffer, startedAt: number, chunkBytes: number): SessionWrites {
  const id = newSessionId(startedAt);
  const events: SessionWrites['events'] = [];
  for (let offset = 0, index = 0; offset < text.length; offset += chunkBytes, index++) {
    events.push({ kind: 'output', at: index * 16, offset, data: text.subarray(offset, Math.min(text.length, offset + chunkBytes)) });
  }
  return {
    id,
    create: {
      id,
      terminalId: null,
      name: `bench ${id}`,
      cwd: '/work/bench',
      file: 'bash',
      args: [],
      createdBy: { kind: 'agent', name: 'bench' },
      startedAt,
      cols: 120,
      rows: 40,
      firstOffset: 0,
      source: 'recorded',
      idleShell: false,
      live: false,
    },
    events,
    commands: [],
    patch: { endedAt: startedAt + events.length * 16, exitCode: 0 },
    writtenAt: startedAt,
  };
}

/** Write `text` as one session in batches of `chunksPerBatch` chunks (one transaction each), like the recorder does. */
export function ingest(store: HistoryStore, text: Buffer, startedAt: number, chunkBytes: number, chunksPerBatch: number, maxSessionBytes: number, onCommitted?: (bytes: number) => void): string {
  const all = sessionWrites(text, startedAt, chunkBytes);
  for (let index = 0; index < all.events.length; index += chunksPerBatch) {
    const first = index === 0;
    const last = index + chunksPerBatch >= all.events.length;
    const batch: SessionWrites = { id: all.id, events: all.events.slice(index, index + chunksPerBatch), commands: [], writtenAt: startedAt };
    if (first) batch.create = all.create!;
    if (last) batch.patch = all.patch!;
    store.applyBatch([batch], maxSessionBytes);
    onCommitted?.(batch.events.reduce((sum, event) => sum + (event.kind === 'output' ? event.data.byteLength : 0), 0));
  }
  return all.id;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
