import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  emptyFilterFields,
  hasActiveFilters,
  localDayStart,
  mayHaveMore,
  mergePage,
  nextPageCursor,
  toHistoryFilter,
} from '../../../renderer/features/history/historyFilters.ts';
import {
  commandExitStatus,
  creatorLabel,
  formatBytes,
  formatClock,
  formatDuration,
  formatStart,
  programLine,
  sessionDuration,
  sessionExitStatus,
} from '../../../renderer/features/history/historyFormat.ts';
import { groupHitsBySession, matchedTerms, snippetParts } from '../../../renderer/features/history/snippetModel.ts';
import type { HistorySearchHit } from '../../../src/common/api/historyContract.ts';

describe('history filters', () => {
  it('sends nothing when no field is set', () => {
    assert.deepEqual(toHistoryFilter(emptyFilterFields, '/home/ada'), { ok: true, filter: undefined });
    assert.equal(hasActiveFilters(emptyFilterFields), false);
  });

  it('turns an inclusive local date range into [from, to) epoch ms', () => {
    const result = toHistoryFilter({ ...emptyFilterFields, fromDate: '2024-03-03', toDate: '2024-03-04' }, undefined);
    assert.ok(result.ok);
    assert.equal(result.filter?.from, new Date(2024, 2, 3).getTime());
    assert.equal(result.filter?.to, new Date(2024, 2, 5).getTime(), 'the whole of the last day is included');
    const oneDay = toHistoryFilter({ ...emptyFilterFields, fromDate: '2024-03-03', toDate: '2024-03-03' }, undefined);
    assert.ok(oneDay.ok);
    assert.equal(oneDay.filter!.to! - oneDay.filter!.from!, new Date(2024, 2, 4).getTime() - new Date(2024, 2, 3).getTime());
  });

  it('refuses impossible dates and a range that ends before it starts', () => {
    assert.equal(localDayStart('2024-02-31'), null);
    assert.equal(localDayStart('yesterday'), null);
    assert.deepEqual(toHistoryFilter({ ...emptyFilterFields, fromDate: '2024-02-31' }, undefined), { ok: false, error: '"2024-02-31" is not a date' });
    assert.deepEqual(toHistoryFilter({ ...emptyFilterFields, fromDate: '2024-03-05', toDate: '2024-03-04' }, undefined), {
      ok: false,
      error: 'The start date is after the end date',
    });
  });

  it('expands ~ in the folder, drops a trailing slash, and passes creator and exit through', () => {
    const result = toHistoryFilter({ fromDate: '', toDate: '', cwd: ' ~/src/app/ ', creator: ' agent ', exit: 'failure' }, '/home/ada/');
    assert.deepEqual(result, { ok: true, filter: { cwd: '/home/ada/src/app', creator: 'agent', exit: 'failure' } });
    assert.deepEqual(toHistoryFilter({ ...emptyFilterFields, cwd: '/' }, '/home/ada'), { ok: true, filter: { cwd: '/' } });
    assert.deepEqual(toHistoryFilter({ ...emptyFilterFields, cwd: '~bob/x' }, '/home/ada'), { ok: true, filter: { cwd: '~bob/x' } });
    assert.equal(hasActiveFilters({ ...emptyFilterFields, exit: 'running' }), true);
  });

  it('pages with a cursor one ms past the oldest item and merges pages by id, newest first', () => {
    const first = [
      { id: 'c', startedAt: 30 },
      { id: 'b', startedAt: 20 },
    ];
    assert.equal(nextPageCursor(first), 21);
    assert.equal(nextPageCursor([]), undefined);
    const second = [
      { id: 'b', startedAt: 20 },
      { id: 'b2', startedAt: 20 },
      { id: 'a', startedAt: 10 },
    ];
    assert.deepEqual(
      mergePage(first, second, (item) => item.id).map((item) => item.id),
      ['c', 'b', 'b2', 'a'],
    );
    assert.equal(mayHaveMore(100, 100), true);
    assert.equal(mayHaveMore(99, 100), false);
  });
});

describe('history formatting', () => {
  it('writes durations with at most two units', () => {
    assert.equal(formatDuration(420), '0.4 s');
    assert.equal(formatDuration(9_990), '9.9 s');
    assert.equal(formatDuration(42_000), '42 s');
    assert.equal(formatDuration(185_000), '3 m 05 s');
    assert.equal(formatDuration(2 * 3_600_000 + 14 * 60_000), '2 h 14 m');
    assert.equal(formatDuration(3 * 86_400_000 + 4 * 3_600_000), '3 d 4 h');
    assert.equal(formatDuration(-1), '—');
    assert.equal(formatClock(65_400), '1:05');
    assert.equal(formatClock(3_723_000), '1:02:03');
  });

  it('writes sizes in binary units', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(12_595), '12.3 KiB');
    assert.equal(formatBytes(4 * 1024 * 1024), '4.0 MiB');
    assert.equal(formatBytes(300 * 1024 * 1024), '300 MiB');
  });

  it('says how a session and a command ended', () => {
    const base = { live: false, exitCode: 0, signal: null, interrupted: false };
    assert.deepEqual(sessionExitStatus(base), { kind: 'success', label: '✓ 0', description: 'Exited with code 0' });
    assert.equal(sessionExitStatus({ ...base, exitCode: 2 }).label, '✗ 2');
    assert.equal(sessionExitStatus({ ...base, exitCode: null, signal: 'SIGKILL' }).label, 'SIGKILL');
    assert.equal(sessionExitStatus({ ...base, live: true }).kind, 'live');
    assert.equal(sessionExitStatus({ ...base, exitCode: null }).kind, 'unknown');
    // Closed by crash recovery: how it really ended is not known, and the pill says why.
    const interrupted = sessionExitStatus({ ...base, exitCode: null, interrupted: true });
    assert.equal(interrupted.label, 'interrupted');
    assert.match(interrupted.description, /Switchboard stopped \(crashed or was killed\)/);
    assert.equal(commandExitStatus({ exitCode: null, endedAt: null }).label, 'running');
    assert.equal(commandExitStatus({ exitCode: 127, endedAt: 5 }).kind, 'failure');
  });

  it('names who started a session', () => {
    assert.equal(creatorLabel({ kind: 'person', name: 'you' }), 'you');
    assert.equal(creatorLabel({ kind: 'agent', name: 'claude' }), 'claude (agent)');
    assert.equal(creatorLabel({ kind: 'remote', name: 'viewer-3' }), 'viewer-3 (remote)');
  });

  it('measures a live session until now and an imported one without an end as unknown', () => {
    assert.equal(sessionDuration({ startedAt: 100, endedAt: 400, live: false }, 10_000), 300);
    assert.equal(sessionDuration({ startedAt: 100, endedAt: null, live: true }, 1_100), 1_000);
    assert.equal(sessionDuration({ startedAt: 100, endedAt: null, live: false }, 1_100), null);
  });

  it('writes start times relative to today', () => {
    const now = new Date(2024, 2, 6, 15, 0).getTime();
    assert.equal(formatStart(new Date(2024, 2, 6, 9, 5).getTime(), now), 'Today 09:05');
    assert.equal(formatStart(new Date(2024, 2, 5, 23, 59).getTime(), now), 'Yesterday 23:59');
    assert.equal(formatStart(new Date(2024, 2, 3, 14, 3).getTime(), now), 'Sun 3 Mar 14:03');
    assert.equal(formatStart(new Date(2023, 11, 31, 8, 0).getTime(), now), '31 Dec 2023 08:00');
  });

  it('shows the program without the Hub’s shell-integration flags', () => {
    assert.equal(programLine({ file: '/bin/bash', args: ['--init-file', '/x/shell-integration/bash/switchboard.bash', '-i'] }), 'bash');
    assert.equal(programLine({ file: '/usr/bin/python3', args: ['-m', 'http.server'] }), 'python3 -m http.server');
  });
});

describe('search snippets', () => {
  it('renders one tidy line of text and marked segments', () => {
    assert.deepEqual(
      snippetParts([
        { text: '\n  build ', match: false },
        { text: 'failed', match: true },
        { text: ':\n\n', match: false },
        { text: 'exit', match: false },
        { text: ' 2  \n', match: false },
      ]),
      [
        { text: 'build ', match: false },
        { text: 'failed', match: true },
        { text: ': exit 2', match: false },
      ],
    );
    assert.deepEqual(snippetParts([{ text: ' \n ', match: false }]), []);
  });

  it('keeps markup as text: a snippet is data, never HTML', () => {
    const parts = snippetParts([{ text: '<img src=x onerror=alert(1)>', match: true }]);
    assert.deepEqual(parts, [{ text: '<img src=x onerror=alert(1)>', match: true }]);
  });

  it('lists the distinct matched words for highlighting in the transcript', () => {
    assert.deepEqual(
      matchedTerms([
        { text: 'a ', match: false },
        { text: 'Needle', match: true },
        { text: ' b ', match: false },
        { text: 'needle', match: true },
        { text: ' hay', match: true },
      ]),
      ['Needle', 'hay'],
    );
  });

  it('groups hits by session in rank order, each group in print order', () => {
    const hit = (sessionId: string, offset: number): HistorySearchHit => ({
      sessionId,
      sessionName: `name-${sessionId}`,
      source: 'output',
      snippet: [],
      offset,
      commandId: null,
      at: offset,
    });
    const groups = groupHitsBySession([hit('s2', 50), hit('s1', 10), hit('s2', 5)]);
    assert.deepEqual(
      groups.map((group) => [group.sessionId, group.hits.map((entry) => entry.offset)]),
      [
        ['s2', [5, 50]],
        ['s1', [10]],
      ],
    );
  });
});
