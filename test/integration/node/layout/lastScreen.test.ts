/**
 * The "last screen" a restored pane shows, rebuilt from History on real PTYs and a real SQLite file.
 * A shell writes for the width it has: readline wraps a long typed line at the margin with a space
 * and a carriage return, so bytes written in a narrow pane, parsed at the pane's later, wider size,
 * put the wrapped part over the start of the line. Found in the app: a pane split at 780 px then
 * widened came back as "eep 300mo:/tmp/ws$ sl".
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { renderLastScreen } from '../../../../src/node/layout/lastScreen.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createHistoryKit, type HistoryKit } from '../history/historyTestKit.ts';

let kit: HistoryKit;
afterEach(() => kit?.dispose());

/** The screen's rows as text, without colours. */
function plainRows(serialized: string): string[] {
  // eslint-disable-next-line no-control-regex
  return serialized.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split('\r\n').map((row) => row.trimEnd());
}

describe('last screen of a restored pane (real bash, real History)', () => {
  it('replays the tail at the sizes it was written at, so a line wrapped in a narrow pane stays whole', async () => {
    kit = createHistoryKit({ settings: { historyRecordIdleSessions: true } });
    const terminal = await kit.bash({ cols: 30, rows: 10 });
    const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
    const typed = 'echo the-quick-brown-fox-jumps-over';
    // At the prompt (this is about the wrap, not type-ahead: a key typed before bash draws its prompt
    // is echoed by the tty in front of it, and readline's idea of the column is then one off — as in
    // any terminal — which moved the wrap by one and read as a lost "n" on a loaded machine).
    await pollUntil(() => /[$#] $/.test(recorded(kit, sessionId)), { what: 'the prompt' });
    // Typed key by key, as a person types: readline echoes each key, and the one that fills the
    // last column is followed by its wrap (" \r"), which is only right at this width.
    for (const key of typed) {
      terminal.write(key);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    terminal.write('\r');
    await pollUntil(() => recorded(kit, sessionId).includes('\rthe-quick-brown-fox-jumps-over\r\n'), { what: 'the echo' });
    assert.ok(recorded(kit, sessionId).includes('brown \r-fox'), 'readline wrapped the typed line for 30 columns');
    // Widened at the prompt (the split was dragged): readline redraws only the line it is on.
    terminal.resize(100, 10);
    terminal.write('echo done\r');
    await pollUntil(() => recorded(kit, sessionId).includes('\rdone\r\n'), { what: 'the second echo' });

    const tail = kit.history.tail(sessionId, 256 * 1024);
    assert.deepEqual([tail.cols, tail.rows], [30, 10], 'the tail starts at the size it was written at');
    assert.ok(tail.steps.some((step) => step.kind === 'resize' && step.cols === 100), 'and carries the resize where it happened');

    const rows = plainRows(await renderLastScreen(tail));
    const commandRow = rows.find((row) => row.includes('echo the-quick'));
    assert.equal(commandRow?.replace(/^.*?[$#] /, ''), typed, `the typed line is whole on one row at 100 columns:\n${rows.join('\n')}`);
    assert.ok(rows.includes('the-quick-brown-fox-jumps-over'), 'and its output follows');
  });

  it('cuts the tail inside a chunk and still starts it at the size in effect there', async () => {
    kit = createHistoryKit({ settings: { historyRecordIdleSessions: true } });
    const terminal = await kit.bash({ cols: 40, rows: 10 });
    const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
    terminal.write('echo first\r');
    await pollUntil(() => Buffer.concat(tailOutput(kit, sessionId)).toString().includes('first\r\n'), { what: 'first output' });
    terminal.resize(60, 12);
    terminal.write('echo second\r');
    await pollUntil(() => Buffer.concat(tailOutput(kit, sessionId)).toString().includes('second\r\n'), { what: 'second output' });
    const whole = Buffer.concat(tailOutput(kit, sessionId));
    const afterResize = whole.length - whole.indexOf('echo second');
    const tail = kit.history.tail(sessionId, afterResize);
    assert.deepEqual([tail.cols, tail.rows], [60, 12], 'a tail that starts after the resize starts at the new size');
    assert.ok(!tail.steps.some((step) => step.kind === 'resize'), 'and replays no resize');
    assert.equal(Buffer.concat(tailOutput(kit, sessionId, afterResize)).toString(), whole.subarray(whole.length - afterResize).toString());
    assert.deepEqual(kit.history.tail('no-such-session', 100), { cols: 0, rows: 0, steps: [] });
  });
});

function recorded(kit: HistoryKit, sessionId: string): string {
  return Buffer.concat(tailOutput(kit, sessionId)).toString();
}

function tailOutput(kit: HistoryKit, sessionId: string, maxBytes = 1_000_000): Uint8Array[] {
  return kit.history.tail(sessionId, maxBytes).steps.flatMap((step) => (step.kind === 'output' ? [step.data] : []));
}
