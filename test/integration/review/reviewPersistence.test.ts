/**
 * Decided reviews are kept in `$SWITCHBOARD_HOME/reviews.db` and survive a restart of the app;
 * pending ones do not (their requesters are gone with the old process).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { FakeClaudeCli, startIdeHub, texts } from '../ide/ideTestKit.ts';

describe('decided reviews across restarts', () => {
  it('keeps who decided what, when, and the final diff; pending reviews end with the app', async () => {
    const kit = await startIdeHub();
    try {
      const file = join(kit.workspace, 'config.json');
      writeFileSync(file, '{"debug": false}\n');
      const cli = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
      await cli.handshake(process.pid);
      const accepted = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: '{"debug": true}\n', tab_name: 'debug on' });
      const first = await pollUntil(async () => (await kit.api.call('review.list', {})).pending[0], { what: 'the first review' });
      await kit.api.call('review.decide', { id: first.id, decision: 'accept', comment: 'ok for now' });
      assert.equal(texts(await accepted)[0], 'FILE_SAVED');
      const rejected = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: '{}\n', tab_name: 'wipe' });
      const second = await pollUntil(async () => (await kit.api.call('review.list', {})).pending[0], { what: 'the second review' });
      await kit.api.call('review.decide', { id: second.id, decision: 'reject', comment: 'no' });
      assert.equal(texts(await rejected)[0], 'DIFF_REJECTED');
      // Left pending at shutdown: its requester hears DIFF_REJECTED, and it is not a decision.
      const leftOver = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'later\n', tab_name: 'later' });
      await pollUntil(async () => (await kit.api.call('review.list', {})).pending[0], { what: 'the third review' });
      const before = (await kit.api.call('review.list', {})).decided;

      await kit.restart();
      assert.deepEqual(texts(await leftOver), ['DIFF_REJECTED', 'later']);
      await cli.closed;

      const after = await kit.api.call('review.list', {});
      assert.deepEqual(after.pending, []);
      assert.deepEqual(after.decided, before, 'the decided list is the same after the restart');
      assert.deepEqual(after.decided.map((summary) => [summary.id, summary.state, summary.decision!.by, summary.decision!.comment]), [
        [second.id, 'rejected', 'you', 'no'],
        [first.id, 'accepted', 'you', 'ok for now'],
      ]);
      const full = await kit.api.call('review.get', { id: first.id });
      assert.equal(full.oldContents, '{"debug": false}\n');
      assert.equal(full.newContents, '{"debug": true}\n');
      assert.equal(full.decision!.finalContents, '{"debug": true}\n');
      assert.match(full.decision!.unifiedDiff, /-\{"debug": false\}\n\+\{"debug": true\}\n$/);
      assert.equal(full.source.tabName, 'debug on');
      const older = await kit.api.call('review.list', { decidedLimit: 1, decidedBefore: after.decided[0]!.decision!.at });
      assert.deepEqual(older.decided.map((summary) => summary.id).filter((id) => id !== second.id).slice(0, 1), [first.id], 'pages by decision time');
      assert.equal(statSync(join(kit.dataDir, 'reviews.db')).mode & 0o777, 0o600);
    } finally {
      await kit.dispose();
    }
  });

  it('moves a corrupt reviews.db aside and starts a fresh one', async () => {
    const temp = createTempHome('sb-review-corrupt-');
    const make = () => new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    let hub = make();
    try {
      await hub.start();
      await hub.shutdown();
      writeFileSync(join(temp.dataDir, 'reviews.db'), 'this is not a database, just garbage bytes '.repeat(100));
      hub = make();
      await hub.start();
      const api = createLocalHubClient(hub);
      assert.deepEqual(await api.call('review.list', {}), { pending: [], decided: [] });
      api.dispose();
      const aside = readdirSync(temp.dataDir).filter((name) => name.startsWith('reviews.db.corrupt-'));
      assert.equal(aside.length, 1, 'the garbage is kept aside, not deleted');
    } finally {
      await hub.shutdown();
      temp.dispose();
    }
  });
});
