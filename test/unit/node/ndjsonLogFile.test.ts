import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { nullLogger } from '../../../src/node/logger.ts';
import { NdjsonLogFile } from '../../../src/node/ndjsonLogFile.ts';
import { createTempHome } from '../../helpers/tempHome.ts';

const Item = z.object({ seq: z.number().int().positive(), text: z.string() });
type Item = z.infer<typeof Item>;

/** An owner that keeps its newest `keep` items, as the audit and bus logs do. */
function owner(filePath: string, options: { keep?: number; compactAtLines?: number } = {}) {
  const kept: Item[] = [];
  const warnings: string[] = [];
  const logger = { ...nullLogger, warn: (message: string) => warnings.push(message), child: () => logger };
  const file = new NdjsonLogFile<Item>({
    filePath,
    logger,
    name: 'test log',
    schema: Item,
    sequenceOf: (item) => item.seq,
    shouldCompact: (lines) => lines > (options.compactAtLines ?? Infinity),
    keptLines: () => kept.map((item) => JSON.stringify(item)),
  });
  const add = (item: Item) => {
    kept.push(item);
    if (kept.length > (options.keep ?? Infinity)) kept.shift();
    file.append(JSON.stringify(item));
  };
  return { file, kept, add, warnings };
}

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter((line) => line !== '');

describe('NdjsonLogFile', () => {
  it('batches one turn of appends into the file, 0600, and reads them back', async () => {
    const temp = createTempHome('sb-ndjson-');
    try {
      const path = join(temp.workspace, 'log.ndjson');
      const { file, add } = owner(path);
      for (let seq = 1; seq <= 3; seq++) add({ seq, text: `t${seq}` });
      await file.flush();
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(lines(path).length, 3);
      const read = await owner(path).file.read();
      assert.deepEqual(read.entries.map((entry) => entry.value.seq), [1, 2, 3]);
      assert.equal(read.skipped, 0);
    } finally {
      temp.dispose();
    }
  });

  it('reads in sequence order, drops repeats and skips (with a warning) lines that are not entries', async () => {
    const temp = createTempHome('sb-ndjson-');
    try {
      const path = join(temp.workspace, 'log.ndjson');
      writeFileSync(path, ['{"seq":2,"text":"b"}', 'garbage', '{"seq":1,"text":"a"}', '{"seq":2,"text":"b"}', '{"seq":"x"}', ''].join('\n'));
      const { file, warnings } = owner(path);
      const read = await file.read();
      assert.deepEqual(read.entries.map((entry) => entry.value.text), ['a', 'b']);
      assert.equal(read.skipped, 2);
      assert.deepEqual(warnings, ['test log: skipped unreadable lines']);
      assert.deepEqual((await owner(join(temp.workspace, 'missing.ndjson')).file.read()).entries, []);
    } finally {
      temp.dispose();
    }
  });

  it('rewrites the file with only the kept lines once it passes the bound, and on request', async () => {
    const temp = createTempHome('sb-ndjson-');
    try {
      const path = join(temp.workspace, 'log.ndjson');
      const { file, add, kept } = owner(path, { keep: 3, compactAtLines: 6 });
      for (let seq = 1; seq <= 6; seq++) {
        add({ seq, text: 'x' });
        await file.flush();
      }
      assert.equal(lines(path).length, 6, 'not past the bound yet');
      add({ seq: 7, text: 'x' });
      await file.flush();
      assert.deepEqual(lines(path).map((line) => JSON.parse(line).seq), [5, 6, 7]);
      kept[0]!.text = 'changed';
      file.requestRewrite();
      await file.flush();
      assert.equal(JSON.parse(lines(path)[0]!).text, 'changed');
      assert.equal(statSync(path).mode & 0o777, 0o600);
    } finally {
      temp.dispose();
    }
  });

  it('dispose writes what is still queued, synchronously, and ignores later appends', () => {
    const temp = createTempHome('sb-ndjson-');
    try {
      const path = join(temp.workspace, 'log.ndjson');
      const { file, add } = owner(path);
      add({ seq: 1, text: 'last words' });
      file.dispose();
      assert.deepEqual(lines(path), ['{"seq":1,"text":"last words"}']);
      add({ seq: 2, text: 'too late' });
      assert.equal(lines(path).length, 1);
    } finally {
      temp.dispose();
    }
  });
});
