/**
 * History search over a generated corpus of stored output (1 GiB; `--quick`: 50 MiB): p50/p95
 * latency of `history.search` queries (rare, medium and common words, several words, phrases,
 * absent words; at most 50 hits with snippets each), and the speed-up over `grep -c WORD` on the same text in
 * a plain file. Targets: p95 < 50 ms, ≥ 100× faster than grep.
 *
 * The corpus lives in a temp dir that is removed afterwards, also when the case fails.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSettings } from '../../src/common/api/contract.ts';
import { HistoryConstants } from '../../src/node/history/historyConstants.ts';
import { HistoryService } from '../../src/node/history/historyService.ts';
import { HistoryStore } from '../../src/node/history/historyStore.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';
import { benchVocabulary, buildLogText, ingest, median, percentile, random } from './historyCorpus.ts';

const sessionBytes = 8 * 1024 * 1024;

export const historySearchCase: BenchCase = {
  name: 'history-search',
  description: 'history.search p95 latency over 1 GiB of stored output (quick: 50 MiB) and speed-up vs grep -c',
  async run({ quick, log }) {
    const corpusBytes = quick ? 50 * 1024 * 1024 : 1024 * 1024 * 1024;
    const queryCount = quick ? 200 : 500;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-search-'));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const textFile = join(dir, 'corpus.txt');
    const settings = { ...defaultSettings, historyMaxTotalMiB: 1024 * 1024, historyMaxSessionMiB: 1024, historyEnabled: false };
    const host = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    const history = new HistoryService({ dataDir, ptyHost: host, settings: () => settings, logger: nullLogger });
    try {
      history.start();
      const db = history.database;
      if (!db) throw new Error(`History did not open: ${history.status().reason}`);
      // Build the corpus: sessions of 8 MiB recorded as 1 MiB chunks (a flood), indexed as the indexer does.
      const writer = new HistoryStore(db);
      const started = performance.now();
      let written = 0;
      for (let index = 0; written < corpusBytes; index++) {
        const text = Buffer.from(buildLogText(Math.min(sessionBytes, corpusBytes - written), 100 + index));
        appendFileSync(textFile, text);
        ingest(writer, text, Date.now() - (corpusBytes - written), HistoryConstants.maxChunkBytes, 128, 1 << 30);
        written += text.length;
        if (index % 16 === 15) log(`corpus: ${(written / 1024 / 1024).toFixed(0)} MiB stored`);
      }
      const storedAt = performance.now();
      history.indexNow();
      const indexedAt = performance.now();
      const dbBytes = statSync(join(dataDir, HistoryConstants.databaseFileName)).size;
      log(
        `corpus: ${(written / 1024 / 1024).toFixed(0)} MiB of output in ${((storedAt - started) / 1000).toFixed(1)} s, indexed in ${((indexedAt - storedAt) / 1000).toFixed(1)} s; switchboard.db ${(dbBytes / 1024 / 1024).toFixed(0)} MiB`,
      );

      // Queries: words by frequency rank (common, medium, rare), two and three words, a phrase of the log lines, and words that are not there.
      const next = random(42);
      const word = (maxRank: number, minRank = 0) => benchVocabulary[minRank + Math.floor(next() * (maxRank - minRank))]!;
      const queries: string[] = [];
      for (let index = 0; queries.length < queryCount; index++) {
        switch (index % 8) {
          case 0: queries.push(word(10)); break;
          case 1: queries.push(word(500, 10)); break;
          case 2: queries.push(word(20_000, 5_000)); break;
          case 3: queries.push(`${word(100)} ${word(2_000, 100)}`); break;
          case 4: queries.push(`"compiling src"`); break;
          case 5: queries.push(`${word(200)} ${word(200)} ${word(200)}`); break;
          case 6: queries.push(`nosuchword${index}`); break;
          case 7: queries.push(`error ${word(50)}`); break;
        }
      }
      const latencies: number[] = [];
      const byKind = new Map<string, number[]>();
      const kinds = ['common word', 'medium word', 'rare word', 'two words', 'phrase', 'three words', 'absent word', 'error + word'];
      let hits = 0;
      for (const [index, query] of queries.entries()) {
        const begin = performance.now();
        hits += history.search(query, { limit: 50 }).length;
        const elapsed = performance.now() - begin;
        latencies.push(elapsed);
        const kind = kinds[index % kinds.length]!;
        byKind.set(kind, [...(byKind.get(kind) ?? []), elapsed]);
      }
      log(`p95 by kind: ${[...byKind].map(([kind, times]) => `${kind} ${percentile(times, 0.95).toFixed(1)} ms`).join(', ')}`);
      const p50 = percentile(latencies, 0.5);
      const p95 = percentile(latencies, 0.95);
      log(`${queries.length} queries, ${hits} hits (50 at most each, with snippets)`);

      // grep -c for a few of the same words over the same text, then history.search and the bare FTS5
      // lookup for each; every one timed 7 times, the median kept. Seven, not three: on our VMs the
      // first few searches right after a grep over the 1 GiB file run 3–5× slower than steady
      // state (CPU-only work does not; both files stay in the page cache), and a median of three
      // measured that passing disturbance rather than the search.
      const repeats = 7;
      const grepWords = [word(10), word(500, 10), word(20_000, 5_000)];
      const grepTimes: number[] = [];
      const searchTimes: number[] = [];
      const lookupTimes: number[] = [];
      const lookup = db.prepare('SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT 50');
      const timed = (work: () => void) => {
        const times: number[] = [];
        for (let repeat = 0; repeat < repeats; repeat++) {
          const begin = performance.now();
          work();
          times.push(performance.now() - begin);
        }
        return median(times);
      };
      for (const grepWord of grepWords) {
        grepTimes.push(
          timed(() => {
            try {
              execFileSync('grep', ['-c', grepWord, textFile], { stdio: ['ignore', 'pipe', 'ignore'] });
            } catch {
              // grep exits 1 when nothing matches; the time is what counts.
            }
          }),
        );
        searchTimes.push(timed(() => history.search(grepWord, { limit: 50 })));
        lookupTimes.push(timed(() => lookup.all(`"${grepWord}"`)));
      }
      const results: BenchResult[] = [
        { label: 'corpus: stored output', value: written / 1024 / 1024, unit: 'MiB', digits: 0 },
        // Not the ingest figure (history-ingest): this also generates the text and writes grep's copy of it.
        { label: 'corpus: generate + write grep file + store + index', value: written / 1e6 / ((indexedAt - started) / 1000), unit: 'MB/s' },
        { label: 'search latency p50', value: p50, unit: 'ms', digits: 2 },
        { label: 'search latency p95 (target < 50)', value: p95, unit: 'ms', digits: 2 },
        { label: 'search latency max', value: Math.max(...latencies), unit: 'ms', digits: 2 },
        { label: 'grep -c over the same text (median)', value: median(grepTimes), unit: 'ms', digits: 0 },
        { label: 'history.search, same words (median)', value: median(searchTimes), unit: 'ms', digits: 2 },
        { label: 'speed-up vs grep -c (target >= 100)', value: median(grepTimes) / Math.max(median(searchTimes), 0.001), unit: 'x', digits: 0 },
        // The index lookup alone (the 50 newest matching blocks), without cutting 50 snippets.
        { label: 'speed-up of the FTS5 lookup alone vs grep -c', value: median(grepTimes) / Math.max(median(lookupTimes), 0.001), unit: 'x', digits: 0 },
      ];
      return results;
    } finally {
      host.dispose();
      history.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
