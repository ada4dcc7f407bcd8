/**
 * Approvals and remote typing through the Hub-owned relay client, end to end: a review requested
 * over the real control socket reaches a viewer of a real `switchboard relay` as
 * `permissionRequest`; the viewer's `permissionResponse` decides it as the local buttons do; a
 * local decision or a withdrawal settles it for every viewer; a viewer's typing into a shared pane
 * reaches the local UI as `terminal.agentInput` with the viewer's name.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RelayMessageOf } from '../../../src/common/protocol/relay/messages.ts';
import { type ApprovalToolInput, cutAtLineEnd } from '../../../src/node/relay/reviewMirror.ts';
import { RelayAppConstants } from '../../../src/node/relay/relayAppConstants.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { NdjsonClient } from '../control/controlTestKit.ts';
import { enableRemoteAccess, type RelayHubFixture, startRelayHub } from './relayHubKit.ts';
import { bashShell, startTestRelay, type TestRelay, TestViewer } from './relayTestKit.ts';

type PermissionRequest = RelayMessageOf<'permissionRequest'>;
type PermissionResponse = RelayMessageOf<'permissionResponse'>;

describe('relay in the app: approvals and remote typing (real relay, real Hub, real control socket)', () => {
  let relay: TestRelay;
  let app: RelayHubFixture;
  let agent: NdjsonClient;
  let ada: TestViewer;
  let bob: TestViewer;

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    app = await startRelayHub();
    await enableRemoteAccess(app, relay, 'm1', relay.tokens.get('m1')!.daemonToken);
    const viewerToken = relay.tokens.get('m1')!.viewerToken;
    ada = await TestViewer.connect(relay, 'm1', viewerToken, { name: 'Ada on her phone' });
    bob = await TestViewer.connect(relay, 'm1', viewerToken, { name: 'Bob' });
    for (const v of [ada, bob]) await v.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'online' });
    agent = await NdjsonClient.connect(app.hub.controlSocketPath);
  });

  after(async () => {
    agent?.close();
    await ada?.close();
    await bob?.close();
    await app?.stop();
    await relay?.close();
  });

  const requestFor = (viewer: TestViewer, path: string, from = 0) =>
    viewer.waitFor(
      (frame): frame is PermissionRequest => frame.type === 'permissionRequest' && (frame.toolInput as ApprovalToolInput | undefined)?.path === path,
      { what: `permissionRequest for ${path}`, from },
    );
  const settlementOf = (viewer: TestViewer, requestId: string, from = 0) =>
    viewer.waitFor((frame): frame is PermissionResponse => frame.type === 'permissionResponse' && frame.requestId === requestId, {
      what: `settlement of ${requestId}`,
      from,
    });

  it('mirrors a review as permissionRequest (openDiff: path, title, source, change, unified diff) to every viewer', async () => {
    const path = join(app.temp.workspace, 'plan.md');
    writeFileSync(path, '# plan\nstep 1\n');
    const answer = agent.request({ cmd: 'review.request', clientName: 'codex', path, newContents: '# plan\nstep 1\nstep 2\n', title: 'Add step 2', withdrawKey: 'plan' });
    const request = await requestFor(ada, path);
    await requestFor(bob, path);
    assert.equal(request.toolName, 'openDiff');
    assert.equal(request.channelId, '*');
    assert.equal(request.sessionId, 'switchboard:m1');
    const input = request.toolInput as ApprovalToolInput;
    assert.equal(input.reviewId, request.requestId);
    assert.deepEqual(
      { title: input.title, change: input.change, source: input.source, stats: input.stats, binary: input.binary, outsideWorkspace: input.outsideWorkspace, diffTruncated: input.diffTruncated, apply: input.apply },
      { title: 'Add step 2', change: 'modify', source: { kind: 'control', name: 'codex', terminalId: null, terminalName: null }, stats: { added: 1, removed: 0 }, binary: null, outsideWorkspace: false, diffTruncated: false, apply: false },
    );
    assert.match(input.diff, /^--- a\/.*plan\.md\n\+\+\+ b\/.*plan\.md\n@@ -1,2 \+1,3 @@\n # plan\n step 1\n\+step 2\n$/);
    assert.equal(input.diffBytes, Buffer.byteLength(input.diff));
    assert.match(input.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Leave it pending for the next test's reconnect check, then withdraw it.
    const mark = ada.frames.length;
    await agent.request({ cmd: 'review.withdraw', withdrawKey: 'plan' });
    const withdrawn = await settlementOf(ada, request.requestId, mark);
    assert.deepEqual(
      { channelId: withdrawn.channelId, approved: withdrawn.approved, outcome: withdrawn.outcome, decidedBy: withdrawn.decidedBy },
      { channelId: '*', approved: false, outcome: 'withdrawn', decidedBy: undefined },
    );
    assert.equal((await answer).ok, false, 'the requester hears it was withdrawn');
  });

  it('a viewer accepting decides the review as the Accept button does: the requester gets the final contents, decided by the viewer', async () => {
    const path = join(app.temp.workspace, 'notes.txt');
    writeFileSync(path, 'old line\n');
    const proposed = 'old line\nnew line from the agent\n';
    const answer = agent.request({ cmd: 'review.request', clientName: 'codex', path, newContents: proposed, apply: true });
    const request = await requestFor(ada, path);
    const bobMark = bob.frames.length;
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });

    const response = await answer;
    assert.equal(response.ok, true, response.error);
    assert.deepEqual(
      { decision: response.decision, finalContents: response.finalContents, edited: response.edited, applied: response.applied, by: response.by },
      { decision: 'accepted', finalContents: proposed, edited: false, applied: true, by: 'Ada on her phone' },
    );
    assert.equal(readFileSync(path, 'utf8'), proposed, 'applied as the requester asked');
    // Every viewer (the one who answered included) hears it is settled, and by whom.
    const settled = await settlementOf(bob, request.requestId, bobMark);
    assert.deepEqual({ approved: settled.approved, outcome: settled.outcome, decidedBy: settled.decidedBy }, { approved: true, outcome: 'accepted', decidedBy: 'Ada on her phone' });
    // The local UI sees the same decision.
    const decided = app.eventsOf('review.decided').find((summary) => summary.id === request.requestId);
    assert.equal(decided?.decision?.by, 'Ada on her phone');

    // A second answer to a settled request changes nothing.
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: false });
    const item = await app.api.call('review.get', { id: request.requestId });
    assert.equal(item.decision?.decision, 'accepted');
  });

  it('a viewer rejecting decides it as the Reject button does', async () => {
    const path = join(app.temp.workspace, 'keep.txt');
    writeFileSync(path, 'keep me\n');
    const answer = agent.request({ cmd: 'review.request', path, newContents: 'clobbered\n', apply: true });
    const request = await requestFor(bob, path);
    bob.send('permissionResponse', { channelId: bob.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: false });
    const response = await answer;
    assert.deepEqual([response.decision, response.by], ['rejected', 'Bob']);
    assert.equal(readFileSync(path, 'utf8'), 'keep me\n');
  });

  it('a local decision settles the request for every viewer; answers with the wrong session are refused', async () => {
    const path = join(app.temp.workspace, 'local.txt');
    writeFileSync(path, 'a\n');
    const answer = agent.request({ cmd: 'review.request', path, newContents: 'b\n' });
    const request = await requestFor(ada, path);
    // Not this daemon's session: refused, the review stays pending.
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: 'someone-else', requestId: request.requestId, approved: true });
    const mark = ada.frames.length;
    await app.api.call('review.decide', { id: request.requestId, decision: 'reject', comment: 'not now' });
    const settled = await settlementOf(ada, request.requestId, mark);
    assert.deepEqual({ approved: settled.approved, outcome: settled.outcome, decidedBy: settled.decidedBy }, { approved: false, outcome: 'rejected', decidedBy: 'you' });
    const response = await answer;
    assert.deepEqual([response.decision, response.by], ['rejected', 'you'], 'the local reviewer decided, not the refused remote answer');
  });

  it('sends the pending requests again when the link comes back', async () => {
    const path = join(app.temp.workspace, 'later.txt');
    writeFileSync(path, 'x\n');
    const answer = agent.request({ cmd: 'review.request', path, newContents: 'y\n', withdrawKey: 'later' });
    const first = await requestFor(ada, path);
    await app.api.call('settings.update', { relayEnabled: false });
    await ada.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'offline', { what: 'offline' });
    const mark = ada.frames.length;
    await app.api.call('settings.update', { relayEnabled: true });
    const again = await requestFor(ada, path, mark);
    assert.equal(again.requestId, first.requestId);
    await agent.request({ cmd: 'review.withdraw', withdrawKey: 'later' });
    await answer;
  });

  it('cuts a huge diff at a line end, flags it, and keeps the frame under the limit; the decision still covers the whole file', async () => {
    const path = join(app.temp.workspace, 'big.txt');
    writeFileSync(path, '');
    const line = 'a line of a generated file, long enough to add up quickly ........................\n';
    const proposed = line.repeat(Math.ceil((RelayAppConstants.approvalDiffMaxBytes * 3) / line.length));
    const answer = agent.request({ cmd: 'review.request', path, newContents: proposed });
    const request = await requestFor(ada, path);
    const input = request.toolInput as ApprovalToolInput;
    assert.equal(input.diffTruncated, true);
    assert.ok(Buffer.byteLength(input.diff) <= RelayAppConstants.approvalDiffMaxBytes, 'at most the diff budget');
    assert.ok(input.diffBytes > Buffer.byteLength(input.diff) * 2, 'diffBytes tells the whole size');
    assert.ok(input.diff.endsWith('\n'), 'cut at a line end');
    assert.ok(JSON.stringify(request).length < 1024 * 1024);
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });
    const response = await answer;
    assert.equal(response.finalContents, proposed, 'accepting accepts the whole proposal');
  });

  it('cutAtLineEnd keeps whole lines within the byte budget (multi-byte characters counted as UTF-8)', () => {
    assert.equal(cutAtLineEnd('ab\ncd\n', 100), 'ab\ncd\n');
    assert.equal(cutAtLineEnd('ab\ncd\n', 5), 'ab\n');
    assert.equal(cutAtLineEnd('abcdef\n', 3), '');
    assert.equal(cutAtLineEnd('é\né\n', 4), 'é\n', 'é is 2 bytes: "é\\n" is 3, both lines 6');
  });

  it('shows a viewer typing into a shared pane like agent input, with the viewer\'s name', async () => {
    const pane = await app.api.call('terminal.create', { file: bashShell.file, args: bashShell.args, shellIntegration: false });
    await app.api.call('relay.setShared', { terminalId: pane.id, shared: true });
    await ada.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === pane.id, { what: 'announcement' });
    const mark = app.events.length;
    // One frame per key, as a browser sends them, with a typo fixed by Backspace.
    for (const key of ['e', 'c', 'h', 'o', ' ', 'h', 'x', '\x7f', 'i', '\r']) ada.typeInto(pane.id, key);
    const inputs = () =>
      app.events
        .slice(mark)
        .filter((entry) => entry.event === 'terminal.agentInput')
        .map((entry) => entry.payload as { id: string; peer: string; text: string });
    await pollUntil(() => inputs().some((input) => input.text === 'echo hi'), { timeoutMs: 15_000, what: 'the finished line shown' });
    for (const input of inputs()) assert.deepEqual([input.id, input.peer], [pane.id, 'Ada on her phone']);
    assert.ok(inputs().length < 10, `keystrokes are gathered into lines, not one event each (got ${inputs().length})`);
    // And the pane got every byte: bash ran the corrected command.
    await pollUntil(async () => (await app.hub.ptyHost.get(pane.id)!.readScreen()).lines.some((text) => text.trim() === 'hi'), { what: 'bash printed hi' });
  });
});
