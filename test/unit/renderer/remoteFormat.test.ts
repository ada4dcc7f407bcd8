import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, formatAgo, formatBytes } from '../../../renderer/features/remote/remoteFormat.ts';

describe('remote view formatting', () => {
  it('tells the lines of a unified diff apart', () => {
    assert.deepEqual(
      diffLines('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n').map((line) => line.kind),
      ['header', 'header', 'hunk', 'context', 'remove', 'add'],
    );
    assert.deepEqual(diffLines('-- not a header\n'), [{ kind: 'remove', text: '-- not a header' }]);
  });

  it('says how long ago and how big, for people', () => {
    assert.equal(formatAgo(10_000), 'just now');
    assert.equal(formatAgo(5 * 60_000), '5 min ago');
    assert.equal(formatAgo(3 * 3_600_000), '3 h ago');
    assert.equal(formatAgo(3 * 86_400_000), '3 d ago');
    assert.equal(formatBytes(null), 'none');
    assert.equal(formatBytes(812), '812 B');
    assert.equal(formatBytes(14_540), '14.2 KB');
  });
});
