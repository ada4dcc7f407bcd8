/**
 * A disk that fills up: the data dir is a real 2 MiB tmpfs (we run as root in CI; where mounting
 * is not allowed, the same path is taken with SQLite's `max_page_count`, which makes the database
 * full for real). Recording pauses with a visible reason, the terminal keeps working, and once
 * space is free again recording resumes into the same session.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSettings, type Settings } from '../../../../src/common/api/contract.ts';
import type { HistoryStatus } from '../../../../src/common/api/historyContract.ts';
import { HistoryService } from '../../../../src/node/history/historyService.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { PtyHost } from '../../../../src/node/pty/ptyHost.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';
import { mountTmpfs, unmountTmpfs } from '../../../helpers/tmpfs.ts';

/** All stored output of a session as text, read piece by piece across gaps. */
function readAll(history: HistoryService, sessionId: string): string {
  let text = '';
  for (let offset = 0; ; ) {
    const read = history.read(sessionId, offset, 16 * 1024 * 1024);
    if (!read || read.data.length === 0) return text;
    text += read.data.toString();
    offset = read.nextOffset;
  }
}

describe('History on a full disk', () => {
  const temp = createTempHome('sb-history-full-');
  let mounted = false;
  let host: PtyHost;
  let history: HistoryService;
  const filler = () => join(temp.dataDir, 'filler.bin');
  const settings: Settings = { ...defaultSettings };

  before(() => {
    mounted = mountTmpfs(temp.dataDir, '2m') === null;
    if (!mounted) console.log('# cannot mount a tmpfs here (not root?): making the database full with PRAGMA max_page_count instead');
    // Room the test frees later, to let recording resume.
    writeFileSync(filler(), Buffer.alloc(768 * 1024, 1));
    host = new PtyHost({ logger: nullLogger, defaultCwd: temp.workspace, mirrorMode: 'inline' });
    history = new HistoryService({
      dataDir: temp.dataDir,
      ptyHost: host,
      settings: () => settings,
      logger: nullLogger,
      // Without a real full disk the limit is a PRAGMA of the Hub's connections: record through them.
      ...(mounted ? {} : { recordingWorkerPath: null }),
    });
    history.start();
    if (!mounted) for (const db of [history.database!, history.recordingDatabase!]) db.exec('PRAGMA max_page_count = 300');
  });

  after(async () => {
    host.dispose();
    history.dispose();
    // The WAL checkpoint worker closes its connection as it stops, a moment after dispose().
    if (mounted) await unmountTmpfs(temp.dataDir);
    temp.dispose();
  });

  it('pauses recording with a reason, keeps the terminal working, and resumes once there is space', async () => {
    const statuses: HistoryStatus[] = [];
    history.onDidChangeStatus((status) => statuses.push(status));
    const terminal = await host.create({ file: 'bash', args: ['--norc', '--noprofile'], env: testEnv(temp.home), shellIntegration: false, createdBy: { kind: 'person', name: 'you' } });
    const output: Buffer[] = [];
    terminal.onDidOutput(({ bytes }) => output.push(Buffer.from(bytes)));
    const sessionId = history.sessionOfTerminal(terminal.id)!;
    // About 4 MB of output: more than the whole disk.
    terminal.write('seq -f "flood line %g" 1 200000; echo flood-$((40+2))-done\r');
    await pollUntil(() => history.status().state === 'paused', { what: 'recording to pause', timeoutMs: 60_000 });
    assert.match(history.status().reason ?? '', /full/i);
    await pollUntil(() => Buffer.concat(output).toString().includes('flood-42-done'), { what: 'the flood to finish in the terminal', timeoutMs: 60_000 });
    terminal.write('echo still-$((1+1))-alive\r');
    await pollUntil(() => Buffer.concat(output).toString().includes('still-2-alive'), { what: 'the terminal to keep working' });

    rmSync(filler());
    if (!mounted) for (const db of [history.database!, history.recordingDatabase!]) db.exec('PRAGMA max_page_count = 1000000');
    history.retryNow();
    await pollUntil(() => history.status().state === 'recording', { what: 'recording to resume' });
    terminal.write('echo after-$((3+4))-recovery\r');
    await pollUntil(() => readAll(history, sessionId).includes('after-7-recovery'), { what: 'new output recorded', timeoutMs: 20_000 });
    // Paused, then recording again — possibly more than once, if it resumed by itself mid-flood.
    const states = statuses.map((status) => status.state);
    assert.equal(states[0], 'paused');
    assert.equal(states.at(-1), 'recording');
    assert.ok(states.every((state, index) => state === (index % 2 === 0 ? 'paused' : 'recording')), states.join(' → '));
    for (const status of statuses.filter((status) => status.state === 'paused')) assert.match(status.reason ?? '', /full/i);
    const session = history.get(sessionId)!;
    assert.equal(session.live, true);
    // A read stops at a gap left while paused; the next one continues after it. There can be more
    // than one: output read but not yet handed to the writer when the failure became known is
    // written when recording resumes (found on a loaded machine), and on a slow one the flood can
    // outlast the retry interval (recording resumes by itself mid-flood). The recovery is last.
    const segments: Array<{ offset: number; nextOffset: number; text: string }> = [];
    for (let at = 0; ; ) {
      const read = history.read(sessionId, at, 16 * 1024 * 1024)!;
      assert.ok(read.nextOffset > at, `a read from ${at} moves on`);
      segments.push({ offset: read.offset, nextOffset: read.nextOffset, text: read.data.toString() });
      if (read.nextOffset >= read.endOffset) break;
      at = read.nextOffset;
    }
    assert.ok(segments.length >= 2, 'a gap');
    for (const [index, segment] of segments.slice(1).entries()) {
      assert.ok(segment.offset > segments[index]!.nextOffset, `a gap: ${segments[index]!.nextOffset} → ${segment.offset}`);
    }
    assert.match(segments.at(-1)!.text, /after-7-recovery/);
    assert.ok(!segments[0]!.text.includes('after-7-recovery'));
  });
});
