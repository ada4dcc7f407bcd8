/**
 * Fault: the IDE bridge's client (the `claude` CLI) vanishes in the middle of an `openDiff`. The
 * client is a real process of its own, killed with SIGKILL while its review is pending (no close
 * frame, the kernel closes its socket), and an in-process client whose TCP connection is cut while
 * its `openDiff` is still opening (the current file is large, so the review does not exist yet).
 *
 * Checked: the pending review is withdrawn (`review.removed`, reason `requester-gone`), nothing is
 * left pending, the connection is gone from `ide.getState` (no tab or promise kept for it), the
 * file is untouched, and the bridge takes a new client whose openDiff — same tab name — works end
 * to end. (A client that closes cleanly: test/integration/ide/ideBridge.test.ts › "keeps reviews
 * of two CLIs apart: closeAllDiffTabs and a disconnect touch only their own".)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../../helpers/poll.ts';
import { FakeClaudeCli, type IdeTestHub, startIdeHub, texts } from '../ide/ideTestKit.ts';

const childScript = fileURLToPath(new URL('./fixtures/ideClientChild.ts', import.meta.url));

describe('fault: the IDE client vanishes mid-openDiff', () => {
  let kit: IdeTestHub;
  const removed: Array<{ id: string; reason: string }> = [];
  const added: Array<{ id: string; path: string }> = [];

  before(async () => {
    kit = await startIdeHub();
    kit.api.on('review.removed', (payload) => removed.push({ id: payload.id, reason: payload.reason }));
    kit.api.on('review.added', (payload) => added.push({ id: payload.id, path: payload.path }));
  });
  after(async () => kit?.dispose());

  const pendingIds = async () => (await kit.api.call('review.list', { decidedLimit: 0 })).pending.map((summary) => summary.id);
  const clientCount = async () => (await kit.api.call('ide.getState', {})).clients.length;

  /** A new client can still review a change to `file` under `tabName`, end to end. */
  const newClientWorks = async (file: string, tabName: string) => {
    const next = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    try {
      await next.handshake(process.pid);
      const reply = next.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'from the next client\n', tab_name: tabName });
      const review = await pollUntil(async () => (await kit.api.call('review.list', { decidedLimit: 0 })).pending.find((summary) => summary.path === file), { what: "the new client's review" });
      await kit.api.call('review.decide', { id: review.id, decision: 'accept' });
      assert.deepEqual(texts(await reply), ['FILE_SAVED', 'from the next client\n']);
    } finally {
      await next.close();
    }
  };

  it('a CLI process killed while its diff is pending: the review is withdrawn, nothing leaks, a new CLI is served', async () => {
    const file = join(kit.workspace, 'pending.txt');
    writeFileSync(file, 'original\n');
    const child = spawn(process.execPath, [childScript, String(kit.port), kit.lock.authToken, file, 'vanishing-tab'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => line === 'sent' && resolve());
      child.once('exit', () => reject(new Error('the client process ended before its openDiff')));
    });
    const review = await pollUntil(() => added.find((entry) => entry.path === file), { what: 'its review pending' });
    assert.equal(await clientCount(), 1);

    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const withdrawn = await pollUntil(() => removed.find((entry) => entry.id === review.id), { what: 'the review withdrawn' });
    assert.equal(withdrawn.reason, 'requester-gone');
    assert.deepEqual(await pendingIds(), []);
    await pollUntil(async () => (await clientCount()) === 0, { what: 'the connection gone from the bridge' });
    assert.equal(readFileSync(file, 'utf8'), 'original\n', 'nothing written');

    await newClientWorks(file, 'vanishing-tab');
  });

  it('a connection cut while its openDiff is still opening: the review is withdrawn as soon as it exists', async () => {
    // A large current file keeps the open busy reading while the connection drops.
    const file = join(kit.workspace, 'opening.txt');
    writeFileSync(file, 'line\n'.repeat(400_000));
    const cli = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    await cli.handshake(process.pid);
    const reply = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'short\n', tab_name: 'opening-tab' });
    // The TCP connection dies without a close frame, as when the CLI's machine or process goes.
    (cli.socket as unknown as { _socket: { destroy(): void } })._socket.destroy();
    assert.match((await reply).error?.message ?? '', /connection closed/);

    await pollUntil(async () => (await clientCount()) === 0, { what: 'the connection gone from the bridge' });
    // Either it never became a review, or it was withdrawn the moment it did.
    await pollUntil(async () => {
      const review = added.find((entry) => entry.path === file);
      return (await pendingIds()).length === 0 && (!review || removed.some((entry) => entry.id === review.id && entry.reason === 'requester-gone'));
    }, { what: 'no review left pending for the vanished client' });

    writeFileSync(file, 'small again\n');
    await newClientWorks(file, 'opening-tab');
  });
});
