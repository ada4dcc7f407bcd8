/** The pointer an agent gets, and how it is typed: never a newline that would press Enter in a shell. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HistoryCommand, HistorySession } from '../../../../src/common/api/historyContract.ts';
import { flattenPointer, pointerInput, referenceFileName, referencePointer, type ResolvedReference } from '../../../../src/node/history/references.ts';

const at = new Date(2026, 11, 2, 14, 3, 9).getTime();
const session: HistorySession = {
  id: 's-abc',
  terminalId: 't-1',
  name: 'build\x1b[31m',
  cwd: '/src',
  file: 'bash',
  args: [],
  createdBy: { kind: 'person', name: 'you' },
  startedAt: at,
  endedAt: at + 60_000,
  exitCode: 0,
  signal: null,
  cols: 80,
  rows: 24,
  receivedInput: true,
  byteCount: 100,
  truncated: false,
  firstOffset: 0,
  commandCount: 1,
  live: false,
  source: 'recorded',
  interrupted: false,
};
const command: HistoryCommand = {
  id: 12,
  sessionId: 's-abc',
  sessionName: 'build',
  commandLine: 'for f in *; do\n  echo "$f"\ndone',
  cwd: '/src',
  exitCode: 1,
  startedAt: at,
  endedAt: at + 1000,
  startOffset: 10,
  endOffset: 90,
};
const item = (overrides: Partial<ResolvedReference> = {}): ResolvedReference => ({ session, command: null, transcript: () => '', live: false, endOffset: 100, asOf: at, ...overrides });

describe('reference pointers', () => {
  it('names files by what they hold, and a live one by the byte it stops at', () => {
    assert.equal(referenceFileName(item()), 's-abc-session.txt');
    assert.equal(referenceFileName(item({ command })), 's-abc-cmd12.txt');
    assert.equal(referenceFileName(item({ live: true, endOffset: 4096 })), 's-abc-session-upto4096.txt');
  });

  it('puts a command line of several lines, and a name with escapes, on one line', () => {
    const pointer = referencePointer([{ item: item({ command }), path: '/d/s-abc-cmd12.txt' }], undefined);
    assert.equal(pointer, '# switchboard: transcript of "for f in *; do   echo "$f" done" (exit 1, 2026-12-02 14:03) at /d/s-abc-cmd12.txt');
    const named = referencePointer([{ item: item(), path: '/d/s-abc-session.txt' }], '  ');
    assert.equal(named, '# switchboard: transcript of session "build [31m" (exit 0, 2026-12-02 14:03) at /d/s-abc-session.txt', 'blank notes are no notes');
  });

  it('lists several items and the notes, each line a comment, and a live one as of when', () => {
    const pointer = referencePointer(
      [
        { item: item({ command }), path: '/d/a.txt' },
        { item: item({ live: true }), path: '/d/b.txt' },
      ],
      'first\r\nsecond\x07',
    );
    assert.deepEqual(pointer.split('\n'), [
      '# switchboard: 2 transcripts from History (plain text files; read what you need):',
      '# 1. "for f in *; do   echo "$f" done" (exit 1, 2026-12-02 14:03): /d/a.txt',
      '# 2. session "build [31m" (started 2026-12-02 14:03, running, as of 2026-12-02 14:03:09): /d/b.txt',
      '# notes: first',
      '#   second',
    ]);
  });

  it('is pasted whole where the program asked for bracketed paste, else typed as one line', () => {
    const pointer = '# a:\n# 1. x\n# notes: n\n#   m';
    assert.deepEqual(pointerInput(pointer, true), { text: pointer, paste: true });
    assert.deepEqual(pointerInput(pointer, false), { text: '# a: | 1. x | notes: n | m', paste: false });
    assert.equal(flattenPointer('# one line'), '# one line');
  });
});
