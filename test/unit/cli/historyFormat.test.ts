import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseWhen } from '../../../src/cli/commands/history.ts';
import { CliUsageError } from '../../../src/cli/command.ts';
import { formatDuration, formatSearchHits, formatSessionTable } from '../../../src/cli/historyFormat.ts';
import type { HistorySession } from '../../../src/common/api/historyContract.ts';

describe('history CLI: --since/--until', () => {
  const now = new Date(2026, 11, 2, 12, 0).getTime();
  it('takes ages and local dates', () => {
    assert.equal(parseWhen('30m', 'since', now), now - 30 * 60_000);
    assert.equal(parseWhen('2h', 'since', now), now - 2 * 3_600_000);
    assert.equal(parseWhen('3d', 'since', now), now - 3 * 86_400_000);
    assert.equal(parseWhen('1w', 'since', now), now - 7 * 86_400_000);
    assert.equal(parseWhen('2026-12-01', 'since', now), new Date(2026, 11, 1).getTime());
    assert.equal(parseWhen('2026-12-01T14:30', 'since', now), new Date(2026, 11, 1, 14, 30).getTime());
  });
  it('refuses anything else with the option named', () => {
    assert.throws(() => parseWhen('yesterday', 'since', now), (error: unknown) => error instanceof CliUsageError && /--since must be a date/.test(error.message));
    assert.throws(() => parseWhen('5y', 'until', now), /--until/);
    // Date.parse would read these as May 2001: a filter that silently matches everything.
    for (const loose of ['5', '-5', '12', 'Dec 1 2026', '2026-12-01T14']) assert.throws(() => parseWhen(loose, 'since', now), /--since must be a date/, loose);
    assert.equal(parseWhen('2026-12-01 14:30', 'since', now), new Date(2026, 11, 1, 14, 30).getTime());
    for (const missing of ['2026-02-30', '2026-02-29T10:00', '2026-04-31']) assert.throws(() => parseWhen(missing, 'since', now), /--since: there is no day 2026-0/, missing);
    assert.equal(parseWhen('2028-02-29', 'since', now), new Date(2028, 1, 29).getTime());
    assert.equal(parseWhen('2026-12-01T14:30:00Z', 'since', now), Date.UTC(2026, 11, 1, 14, 30));
  });
});

describe('history CLI: output', () => {
  const session: HistorySession = {
    id: 's-1',
    terminalId: 't-1',
    name: 'build\x1b]0;evil\x07',
    cwd: '/home/ada/src',
    file: '/bin/bash',
    args: [],
    createdBy: { kind: 'agent', name: 'claude' },
    startedAt: new Date(2026, 11, 2, 9, 5).getTime(),
    endedAt: new Date(2026, 11, 2, 9, 7, 30).getTime(),
    exitCode: 1,
    signal: null,
    cols: 80,
    rows: 24,
    receivedInput: true,
    byteCount: 2048,
    truncated: false,
    firstOffset: 0,
    commandCount: 3,
    live: false,
    source: 'recorded',
    interrupted: false,
  };

  it('prints sessions as a table with home shortened and control characters neutralised', () => {
    const text = formatSessionTable([session], '/home/ada');
    const [header, row] = text.trimEnd().split('\n');
    assert.match(header!, /^ID\s+STARTED\s+DURATION\s+STATUS\s+SIZE\s+CREATED BY\s+NAME\s+CWD$/);
    assert.match(row!, /^s-1\s+2026-12-02 09:05\s+2m30s\s+exit 1\s+2\.0 KiB\s+agent:claude\s+build\?\]0;evil\?\s+~\/src$/);
    // Closed by the start after a crash: its exit is unknown, and the table says why.
    const interrupted = formatSessionTable([{ ...session, exitCode: null, interrupted: true }], '/home/ada').trimEnd().split('\n')[1]!;
    assert.match(interrupted, /^s-1\s+\S+ \S+\s+2m30s\s+interrupted\s+2\.0 KiB/);
    assert.equal(formatSessionTable([], undefined), 'No recorded sessions.\n');
    assert.equal(formatSessionTable([], undefined, Date.now(), true), 'No recorded session matches these filters.\n');
  });

  it('marks matches in snippets: bold on a terminal, brackets in a pipe', () => {
    const hit = {
      sessionId: 's-1',
      sessionName: 'build',
      source: 'output' as const,
      snippet: [
        { text: 'npm ERR! code\n', match: false },
        { text: 'ENOSPC', match: true },
        { text: ' no space', match: false },
      ],
      offset: 0,
      commandId: null,
      at: session.startedAt,
    };
    assert.equal(formatSearchHits([hit], { color: false }), 's-1  2026-12-02 09:05  build  npm ERR! code [ENOSPC] no space\n');
    assert.match(formatSearchHits([hit], { color: true }), /\x1b\[1;33mENOSPC\x1b\[0m/);
  });

  it('formats durations', () => {
    assert.deepEqual([formatDuration(400), formatDuration(59_000), formatDuration(61_000), formatDuration(3_723_000)], ['0s', '59s', '1m01s', '1h02m']);
  });
});
