/** git's patch output cut into files and hunks, with names that need unquoting, renames, binaries and new files. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUnifiedDiff, unquote } from '../../../../src/node/workspaces/unifiedDiff.ts';

describe('parseUnifiedDiff', () => {
  it('splits files and hunks, counting lines, keeping each hunk byte for byte', () => {
    const diff = [
      'diff --git a/a.txt b/a.txt',
      'index 1111111..2222222 100644',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,2 +1,2 @@',
      ' one',
      '-two',
      '+TWO',
      '@@ -10 +10,2 @@ context',
      ' ten',
      '+eleven',
      '\\ No newline at end of file',
      'diff --git a/new file.txt b/new file.txt',
      'new file mode 100644',
      'index 0000000..3333333',
      '--- /dev/null',
      '+++ b/new file.txt',
      '@@ -0,0 +1 @@',
      '+hello',
      '',
    ].join('\n');
    const files = parseUnifiedDiff(diff);
    assert.deepEqual(files.map((file) => [file.path, file.status, file.additions, file.deletions, file.hunks.length]), [
      ['a.txt', 'modified', 2, 1, 2],
      ['new file.txt', 'added', 1, 0, 1],
    ]);
    assert.equal(files[0]!.hunks[1]!.text, '@@ -10 +10,2 @@ context\n ten\n+eleven\n\\ No newline at end of file\n');
    assert.deepEqual([files[0]!.hunks[1]!.oldStart, files[0]!.hunks[1]!.oldLines, files[0]!.hunks[1]!.newLines], [10, 1, 2]);
    assert.equal(files[0]!.header, 'diff --git a/a.txt b/a.txt\nindex 1111111..2222222 100644\n--- a/a.txt\n+++ b/a.txt\n');
  });

  it('reads renames, deletions and binary files', () => {
    const diff = [
      'diff --git a/old.txt b/moved.txt',
      'similarity index 100%',
      'rename from old.txt',
      'rename to moved.txt',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git a/img.png b/img.png',
      'index 1..2 100644',
      'Binary files a/img.png and b/img.png differ',
      '',
    ].join('\n');
    const files = parseUnifiedDiff(diff);
    assert.deepEqual(files.map((file) => [file.path, file.oldPath, file.status, file.binary]), [
      ['moved.txt', 'old.txt', 'renamed', false],
      ['gone.txt', null, 'deleted', false],
      ['img.png', null, 'modified', true],
    ]);
  });

  it('unquotes git C-style names (octal UTF-8 bytes, escapes)', () => {
    assert.equal(unquote('"tab\\there"'), 'tab\there');
    assert.equal(unquote('"caf\\303\\251"'), 'café');
    assert.equal(unquote('plain'), 'plain');
  });
});
