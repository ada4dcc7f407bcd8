import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatCursor, parseCursor } from '../../../../../src/node/control/bus/busCursor.ts';

describe('bus cursors in both dialects', () => {
  it('reads numbers, decimal strings and claws cursors of segment 0000 as a sequence', () => {
    assert.deepEqual(parseCursor(0), { ok: true, cursor: { sequence: 0, dialect: 'number' } });
    assert.deepEqual(parseCursor(42), { ok: true, cursor: { sequence: 42, dialect: 'number' } });
    assert.deepEqual(parseCursor('42'), { ok: true, cursor: { sequence: 42, dialect: 'number' } });
    assert.deepEqual(parseCursor('0000:0'), { ok: true, cursor: { sequence: 0, dialect: 'claws' } });
    assert.deepEqual(parseCursor('0000:1428'), { ok: true, cursor: { sequence: 1428, dialect: 'claws' } });
  });

  it('refuses what names nothing here, saying what would', () => {
    for (const bad of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2, '', 'abc', '000:1', '0000:', '0000:-1', ' 0000:0', '0000:99999999999999999999']) {
      const parsed = parseCursor(bad);
      assert.equal(parsed.ok, false, String(bad));
      if (!parsed.ok) assert.match(parsed.error, /invalid cursor .*"0000:0"/, String(bad));
    }
    const foreign = parseCursor('0003:10');
    assert.equal(foreign.ok, false);
    if (!foreign.ok) assert.match(foreign.error, /segment 0003/);
  });

  it('writes a cursor back in the dialect it came in, and what it writes reads back the same', () => {
    assert.equal(formatCursor(7, 'number'), 7);
    assert.equal(formatCursor(7, 'claws'), '0000:7');
    for (const dialect of ['number', 'claws'] as const) {
      const parsed = parseCursor(formatCursor(123, dialect));
      assert.deepEqual(parsed, { ok: true, cursor: { sequence: 123, dialect } });
    }
  });
});
