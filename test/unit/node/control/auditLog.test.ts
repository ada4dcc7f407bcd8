/** The agents' audit log on a real file: kept across a reload, bounded, private, read through a schema. */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AuditLog, auditLogFileName } from '../../../../src/node/control/auditLog.ts';
import { nullLogger } from '../../../../src/node/logger.ts';

describe('AuditLog', () => {
  const root = mkdtempSync(join(tmpdir(), 'sb-audit-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let dirs = 0;
  const newFile = () => join(mkdtempSync(join(root, `d${dirs++}-`)), auditLogFileName);
  const open = (filePath: string, capacity = 5) => new AuditLog({ filePath, capacity, logger: nullLogger, terminalName: (id) => `name of ${id}` });

  it('keeps its entries across a reload in a 0600 file; numbering continues', async () => {
    const filePath = newFile();
    const log = open(filePath);
    await log.load();
    log.record({ peer: 'agent-a', cmd: 'send', terminalId: 't-1', summary: 'npm test\r' });
    log.record({ peer: 'agent-b', cmd: 'close', terminalId: 't-2', summary: '' });
    await log.flush();
    log.dispose();
    assert.equal(statSync(filePath).mode & 0o777, 0o600);

    const reloaded = open(filePath);
    await reloaded.load();
    assert.deepEqual(
      reloaded.query().map((entry) => [entry.seq, entry.peer, entry.cmd, entry.terminalId, entry.terminalName, entry.summary]),
      [
        [1, 'agent-a', 'send', 't-1', 'name of t-1', 'npm test\\r'],
        [2, 'agent-b', 'close', 't-2', 'name of t-2', ''],
      ],
    );
    assert.equal(reloaded.record({ peer: 'agent-a', cmd: 'resize', terminalId: 't-1', summary: '80x24' }).seq, 3);
    reloaded.dispose(); // a hard stop still writes what is queued
    const again = open(filePath);
    await again.load();
    assert.deepEqual(again.query().map((entry) => entry.seq), [1, 2, 3]);
    again.dispose();
  });

  it('stays bounded in memory and on disk', async () => {
    const filePath = newFile();
    const log = open(filePath, 5);
    await log.load();
    for (let index = 1; index <= 23; index++) {
      log.record({ peer: 'agent', cmd: 'send', terminalId: 't-1', summary: `line ${index}` });
      await log.flush();
    }
    assert.deepEqual(log.query({ limit: 100 }).map((entry) => entry.seq), [19, 20, 21, 22, 23]);
    const lines = readFileSync(filePath, 'utf8').trim().split('\n');
    assert.ok(lines.length <= 2 * 5 + 1, `the file is rewritten with the kept entries (${lines.length} lines)`);
    log.dispose();
    const reloaded = open(filePath, 5);
    await reloaded.load();
    assert.deepEqual(reloaded.query({ limit: 100 }).map((entry) => entry.summary), ['line 19', 'line 20', 'line 21', 'line 22', 'line 23']);
    reloaded.dispose();
  });

  it('skips lines that are not valid entries, and rewrites the file without them', async () => {
    const filePath = newFile();
    const log = open(filePath);
    await log.load();
    log.record({ peer: 'agent', cmd: 'send', terminalId: 't-1', summary: 'ok' });
    await log.flush();
    log.dispose();
    appendFileSync(filePath, 'not json\n{"seq":"two","cmd":"send"}\n{"seq":9,"at":1,"peer":"p","cmd":"","terminalId":"t","summary":"empty cmd"}\n');
    const reloaded = open(filePath);
    await reloaded.load();
    assert.deepEqual(reloaded.query().map((entry) => entry.summary), ['ok']);
    await reloaded.flush();
    assert.equal(readFileSync(filePath, 'utf8').trim().split('\n').length, 1);
    reloaded.dispose();
  });

  it('moves entries to the restored pane that replaces their terminal, on disk too', async () => {
    const filePath = newFile();
    const log = open(filePath);
    await log.load();
    log.record({ peer: 'agent', cmd: 'send', terminalId: 't-old', summary: 'a' });
    log.record({ peer: 'agent', cmd: 'send', terminalId: 't-gone', summary: 'b' });
    log.followRestoredTerminals(new Map([['t-old', 't-new']]));
    await log.flush();
    log.dispose();
    const reloaded = open(filePath);
    await reloaded.load();
    assert.deepEqual(reloaded.query().map((entry) => [entry.terminalId, entry.terminalName]), [
      ['t-new', 'name of t-old'],
      ['t-gone', 'name of t-gone'],
    ]);
    reloaded.dispose();
  });

  it('keeps entries in memory only without a file', async () => {
    const log = new AuditLog({ capacity: 2 });
    await log.load();
    log.record({ peer: 'p', cmd: 'send', terminalId: 't', summary: 'a' });
    assert.deepEqual(log.fill, { kept: 1, capacity: 2, full: false });
    for (const summary of ['b', 'c']) log.record({ peer: 'p', cmd: 'send', terminalId: 't', summary });
    assert.deepEqual(log.query().map((entry) => entry.summary), ['b', 'c']);
    assert.deepEqual(log.fill, { kept: 2, capacity: 2, full: true });
    await log.flush();
    log.dispose();
  });
});
