import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isExecSentinelLine } from '../../../../src/common/terminal/execSentinel.ts';
import { sentinelLine } from '../../../../src/node/control/shellCommandLine.ts';

describe('isExecSentinelLine: an exec wrapper, and only that', () => {
  test("every shell's wrapper, also as bash names it by its first simple command", () => {
    for (const flavor of ['bash', 'zsh', 'fish', 'sh'] as const) {
      const line = sentinelLine('make test', flavor, '0123456789abcdef');
      assert.equal(isExecSentinelLine(line), true, flavor);
      assert.equal(isExecSentinelLine(line.slice(0, line.indexOf('"$PWD"') + 6)), true, `${flavor}: first simple command`);
    }
  });

  test('a command that prints marker-like text itself is a command of its own', () => {
    assert.equal(isExecSentinelLine("printf '\\033]6973;S;x;/\\a\\033]6973;E;x;3\\a'; echo z"), false);
    assert.equal(isExecSentinelLine("echo \"builtin printf '\\033]6973;S;0123456789abcdef;%s\\007' \\\"\\$PWD\\\"\""), false);
    assert.equal(isExecSentinelLine('make test'), false);
  });
});
