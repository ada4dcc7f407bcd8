import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { selectionFor } from '../../../../src/node/ide/ideTools.ts';
import { checkUpgrade, tokensEqual } from '../../../../src/node/ide/upgradeGuard.ts';
import { resolveIdeLockDir } from '../../../../src/node/ide/lockFile.ts';

const file = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n';

describe('openFile selections', () => {
  it('selects whole lines from 1-based startLine/endLine, clamped to the file', () => {
    assert.deepEqual(selectionFor(file, { startLine: 2, endLine: 3 }), { start: { line: 1, character: 0 }, end: { line: 2, character: 1 } });
    assert.deepEqual(selectionFor(file, { startLine: 5 }), { start: { line: 4, character: 0 }, end: { line: 4, character: 14 } });
    assert.deepEqual(selectionFor(file, { startLine: 999, endLine: 1000 }), { start: { line: 7, character: 0 }, end: { line: 7, character: 0 } }, 'the empty line after the final newline');
  });

  it('selects from startText to the end of endText, optionally to the end of the line', () => {
    assert.deepEqual(selectionFor(file, { startText: 'function b', endText: '}' }), { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } });
    assert.deepEqual(selectionFor(file, { startText: 'return 2', selectToEndOfLine: true }), { start: { line: 5, character: 2 }, end: { line: 5, character: 11 } });
    assert.deepEqual(selectionFor(file, { startText: 'return', startLine: 5 }), { start: { line: 5, character: 2 }, end: { line: 5, character: 8 } }, 'startLine says where to start looking');
    assert.deepEqual(selectionFor(file, { startText: '{\n  return 2' }), { start: { line: 4, character: 13 }, end: { line: 5, character: 10 } });
    assert.equal(selectionFor(file, { startText: 'not there' }), null);
    assert.equal(selectionFor(file, {}), null);
  });
});

describe('IDE bridge upgrade guard', () => {
  const token = '0123456789abcdef0123456789abcdef';
  const good = { 'x-claude-code-ide-authorization': token, 'sec-websocket-protocol': 'mcp' };

  it('lets the CLI in and nobody else', () => {
    assert.deepEqual(checkUpgrade(good, token), { ok: true });
    assert.deepEqual(checkUpgrade({ ...good, 'sec-websocket-protocol': 'chat, mcp' }, token), { ok: true });
    assert.equal((checkUpgrade({ ...good, origin: 'null' } as never, token) as { status: number }).status, 403);
    assert.equal((checkUpgrade({ ...good, 'x-claude-code-ide-authorization': token.toUpperCase() }, token) as { status: number }).status, 401);
    assert.equal((checkUpgrade({ 'sec-websocket-protocol': 'mcp' }, token) as { status: number }).status, 401);
    assert.equal((checkUpgrade({ ...good, 'sec-websocket-protocol': 'mcp2' }, token) as { status: number }).status, 400);
  });

  it('compares tokens of any length without throwing', () => {
    assert.equal(tokensEqual('a', token), false);
    assert.equal(tokensEqual(token, token), true);
  });

  it('finds the lock directory from CLAUDE_CONFIG_DIR, else HOME, else nowhere', () => {
    assert.equal(resolveIdeLockDir({ CLAUDE_CONFIG_DIR: '/cfg', HOME: '/h' }), '/cfg/ide');
    assert.equal(resolveIdeLockDir({ HOME: '/h' }), '/h/.claude/ide');
    assert.equal(resolveIdeLockDir({}), null);
  });
});
