/**
 * Nothing acknowledged is lost when the app is killed: a child process records a terminal into a
 * real database and acknowledges each committed batch; it is killed with SIGKILL mid-stream; the
 * database then opens cleanly (integrity_check ok) and holds at least every acknowledged byte.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { defaultSettings } from '../../../../src/common/api/contract.ts';
import { openHistoryDatabase } from '../../../../src/node/history/historyDatabase.ts';
import { HistoryService } from '../../../../src/node/history/historyService.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { PtyHost } from '../../../../src/node/pty/ptyHost.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';

const childScript = fileURLToPath(new URL('./fixtures/recordingChild.ts', import.meta.url));

describe('History durability', () => {
  const temp = createTempHome('sb-history-kill-');
  mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
  after(() => temp.dispose());

  it('keeps everything acknowledged after kill -9, and the database opens cleanly', async () => {
    const child = spawn(process.execPath, [childScript, temp.dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    let sessionId = '';
    let acknowledged = 0;
    let acks = 0;
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${acks} acks from the child`)), 60_000);
      lines.on('line', (line) => {
        const [word, id, bytes] = line.split(' ');
        if (word !== 'ack') return;
        sessionId = id!;
        acknowledged = Number(bytes);
        // Kill it in the middle of recording, right after an acknowledged batch.
        if (++acks === 25) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () => reject(new Error('the child ended early')));
    });
    assert.equal(await exited, 'SIGKILL');
    assert.ok(acknowledged > 0);

    const path = join(temp.dataDir, 'switchboard.db');
    const opened = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(opened.ok, 'the database opens');
    assert.equal(opened.movedAside, null, 'and is not treated as corrupt');
    assert.deepEqual(opened.db.prepare('PRAGMA integrity_check').all().map((row) => row.integrity_check), ['ok']);
    opened.db.close();

    // Through the service (which also closes the session the crash left live).
    const host = new PtyHost({ logger: nullLogger, defaultCwd: temp.dataDir, mirrorMode: 'inline' });
    const history = new HistoryService({ dataDir: temp.dataDir, ptyHost: host, settings: () => defaultSettings, logger: nullLogger });
    try {
      history.start();
      const session = history.get(sessionId);
      assert.ok(session, 'the session is there');
      assert.equal(session.live, false, 'ended by crash recovery');
      assert.equal(session.interrupted, true, 'and marked as interrupted');
      assert.ok(session.endedAt !== null);
      assert.ok(session.byteCount >= acknowledged, `stored ${session.byteCount} >= acknowledged ${acknowledged}`);
      const output = history.read(sessionId, 0, 16 * 1024 * 1024)!.data.toString();
      const numbers = [...output.matchAll(/line-(\d+)\r\n/g)].map((match) => Number(match[1]));
      assert.ok(numbers.length > 10);
      assert.deepEqual(numbers, numbers.map((_, index) => index + 1), 'every line, in order, no gap');
    } finally {
      host.dispose();
      history.dispose();
    }
  });
});
