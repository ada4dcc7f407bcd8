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

  it('counts what an accept changed, not what was proposed, once changes were left out or edited', async () => {
    const kit = await startIdeHub();
    try {
      const file = join(kit.workspace, 'numbers.txt');
      writeFileSync(file, 'one\ntwo\nthree\n');
      const cli = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
      await cli.handshake(process.pid);
      const announced: unknown[] = [];
      kit.api.on('review.decided', (summary) => announced.push(summary.stats));
      const propose = async (tabName: string, contents: string) => {
        const call = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: contents, tab_name: tabName });
        const summary = await pollUntil(async () => (await kit.api.call('review.list', {})).pending.find((review) => review.source.tabName === tabName), { what: tabName });
        return { call, summary };
      };

      // The proposal replaces "two" and adds three lines (+4 −1); the person keeps only the three added lines (+3 −0).
      const partly = await propose('partly', 'one\n2\nthree\nfour\nfive\nsix\n');
      assert.deepEqual(partly.summary.stats, { added: 4, removed: 1 });
      const decided = await kit.api.call('review.decide', { id: partly.summary.id, decision: 'accept', finalContents: 'one\ntwo\nthree\nfour\nfive\nsix\n' });
      assert.equal(texts(await partly.call)[0], 'FILE_SAVED');
      assert.deepEqual(decided.stats, { added: 3, removed: 0 }, 'the decision as answered');
      // Unedited accepts and rejections count the proposal, which is what they wrote or turned down.
      const whole = await propose('whole', 'one\ntwo\nthree\nfour\n');
      assert.deepEqual((await kit.api.call('review.decide', { id: whole.summary.id, decision: 'accept' })).stats, { added: 1, removed: 0 });
      const turnedDown = await propose('turned down', 'one\n');
      assert.deepEqual((await kit.api.call('review.decide', { id: turnedDown.summary.id, decision: 'reject' })).stats, { added: 0, removed: 2 });
      await pollUntil(() => announced.length === 3, { what: 'three review.decided events' });
      assert.deepEqual(announced, [{ added: 3, removed: 0 }, { added: 1, removed: 0 }, { added: 0, removed: 2 }], 'as announced to every window');

      const listed = async () => new Map((await kit.api.call('review.list', {})).decided.map((summary) => [summary.id, summary.stats]));
      assert.deepEqual((await listed()).get(partly.summary.id), { added: 3, removed: 0 }, 'in the decided list');
      const full = await kit.api.call('review.get', { id: partly.summary.id });
      assert.deepEqual(full.stats, { added: 3, removed: 0 });
      assert.equal(full.decision!.unifiedDiff.split('\n').filter((line) => /^[+-](?![+-]{2} )/.test(line)).length, 3, 'the diff it shows has those lines');
      await kit.restart();
      const afterRestart = await listed();
      assert.deepEqual([afterRestart.get(partly.summary.id), afterRestart.get(whole.summary.id), afterRestart.get(turnedDown.summary.id)], [
        { added: 3, removed: 0 },
        { added: 1, removed: 0 },
        { added: 0, removed: 2 },
      ]);
      await cli.closed;
    } finally {
      await kit.dispose();
    }
  });

  it('counts a huge edited accept roughly at once, then exactly once its diff is in', async () => {
    const kit = await startIdeHub();
    try {
      // Past the size diffed on the Hub's thread: the counts announced with the decision are approximate.
      const lines = Array.from({ length: 30_000 }, (_, index) => `line ${index}\n`);
      const file = join(kit.workspace, 'huge.txt');
      writeFileSync(file, lines.join(''));
      const cli = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
      await cli.handshake(process.pid);
      const changed = (replacements: Record<number, string>) => lines.map((line, index) => replacements[index] ?? line).join('');
      const call = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: changed({ 5: 'five\n', 15_000: 'middle\n', 29_990: 'near the end\n' }), tab_name: 'huge' });
      const pending = await pollUntil(async () => (await kit.api.call('review.list', {})).pending[0], { what: 'the huge review' });
      assert.deepEqual(pending.stats, { added: 3, removed: 3 });
      // The middle change is left out.
      const decided = await kit.api.call('review.decide', { id: pending.id, decision: 'accept', finalContents: changed({ 5: 'five\n', 29_990: 'near the end\n' }) });
      assert.equal(texts(await call)[0], 'FILE_SAVED');
      assert.equal(decided.stats.approximate, true, `announced as approximate: ${JSON.stringify(decided.stats)}`);
      assert.ok(decided.stats.added >= 2 && decided.stats.removed >= 2);
      await kit.hub.reviews.flush();
      assert.deepEqual((await kit.api.call('review.list', {})).decided[0]!.stats, { added: 2, removed: 2 }, 'exact once the diff is in');
      assert.deepEqual((await kit.api.call('review.get', { id: pending.id })).stats, { added: 2, removed: 2 });
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
