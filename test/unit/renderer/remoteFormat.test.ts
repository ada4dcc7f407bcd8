import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { acceptEffect, diffLines, formatAgo, formatBytes, remoteWaitingEntries } from '../../../renderer/features/remote/remoteFormat.ts';

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

  it('says what Accept does to the file: the machine writes it, or the requester does', () => {
    assert.equal(acceptEffect({ apply: true, change: 'modify', source: { name: 'codex' } }, 'home'), 'Accept: Switchboard writes the change to the file on home.');
    assert.equal(acceptEffect({ apply: true, change: 'delete', source: { name: 'codex' } }, 'home'), 'Accept: Switchboard deletes the file on home.');
    assert.equal(acceptEffect({ apply: false, change: 'modify', source: { name: 'Claude Code' } }, 'home'), 'Accept: Claude Code gets the change and writes the file itself; Switchboard writes nothing.');
    assert.equal(acceptEffect({ apply: false, change: 'delete' }, 'home'), 'Accept: the requester gets the change and deletes the file itself; Switchboard writes nothing.');
    // A daemon that does not say gets no guess.
    assert.equal(acceptEffect({ change: 'modify', source: { name: 'x' } }, 'home'), undefined);
  });
});

describe('remoteWaitingEntries', () => {
  it('merges waiting agents and pending reviews, oldest first', () => {
    const entries = remoteWaitingEntries(
      [
        { key: 'agent:t-1:30', since: 30 },
        { key: 'agent:t-2:10', since: 10 },
      ],
      [{ requestId: 'rv-1', openedAt: 20 }],
    );
    assert.deepEqual(
      entries.map((entry) => entry.key),
      ['agent:t-2:10', 'review:rv-1', 'agent:t-1:30'],
    );
  });
});
