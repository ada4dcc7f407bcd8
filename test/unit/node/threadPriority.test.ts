import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { nullLogger } from '../../../src/node/logger.ts';
import { MirrorHost } from '../../../src/node/pty/mirrorHost.ts';
import { mirrorWorkerNice } from '../../../src/node/threadPriority.ts';

/** Nice value of each thread of this process, by thread id (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(): Map<number, number> {
  const values = new Map<number, number>();
  for (const entry of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start with field 3.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      values.set(Number(entry), Number(fields[19 - 3]));
    } catch {
      // The thread ended while we listed them.
    }
  }
  return values;
}

const skip = process.platform === 'linux' ? false : 'thread priorities are only set on Linux (elsewhere nice applies to the whole process)';

test('the mirror worker parses at its lower CPU priority and leaves the Hub thread as it was', { skip }, async () => {
  const before = threadNiceValues();
  const hubNice = before.get(process.pid);
  const host = new MirrorHost({ logger: nullLogger, mode: 'worker' });
  try {
    const mirror = host.create({ cols: 20, rows: 3, scrollback: 10 });
    mirror.write(Buffer.from('ready'), 5);
    // Answered by the worker, so its thread is running (and has set its priority first).
    assert.deepEqual((await mirror.readText()).lines[0], 'ready');
    const after = threadNiceValues();
    const newThreads = [...after].filter(([threadId]) => !before.has(threadId));
    assert.ok(newThreads.length > 0, 'the worker started a thread');
    assert.ok(
      newThreads.some(([, nice]) => nice === mirrorWorkerNice),
      `a new thread runs at nice ${mirrorWorkerNice}: ${JSON.stringify(newThreads)}`,
    );
    assert.equal(after.get(process.pid), hubNice, "the Hub thread's priority is unchanged");
  } finally {
    host.dispose();
  }
});
