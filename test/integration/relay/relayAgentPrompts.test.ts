/**
 * Answering an agent from a phone (issue 19), end to end through a real `switchboard relay`
 * (in-process RelayServer, real WebSockets) and a real Hub whose shared pane runs the Claude Code
 * stand-in (test/helpers/standInClaude.ts) under the Hub's real agent detection:
 * - its permission prompt reaches viewers as `permissionRequest {toolName: "Bash", toolInput}`, a
 *   viewer's approval types the answer (the command runs), settles it for everyone and shows in
 *   the local pane who answered, and `agentTerminalUpdated` follows the agent's state;
 * - its question reaches them as `question {question, options}`, answered by an option's label;
 * - an answer to a prompt answered on the machine first is refused to that viewer, and nothing is
 *   typed; an answer that names no option is refused the same way;
 * - a viewer that joins later gets the pending prompt and question from the relay.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import { rfc3339 } from '../../../src/common/protocol/relay/frames.ts';
import type { RelayMessage, RelayMessageOf } from '../../../src/common/protocol/relay/messages.ts';
import type { AgentPermissionToolInput } from '../../../src/node/relay/agentPrompts.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { installStandInClaude } from '../../helpers/standInClaude.ts';
import { enableRemoteAccess, type RelayHubFixture, startRelayHub } from './relayHubKit.ts';
import { startTestRelay, type TestRelay, TestViewer } from './relayTestKit.ts';

type PermissionRequest = RelayMessageOf<'permissionRequest'>;
type PermissionResponse = RelayMessageOf<'permissionResponse'>;
type Question = RelayMessageOf<'question'>;
type QuestionResponse = RelayMessageOf<'questionResponse'>;
type Updated = RelayMessageOf<'agentTerminalUpdated'>;

describe('agent prompts through the relay (real relay, real Hub, Claude Code stand-in in a shared pane)', () => {
  let relay: TestRelay;
  let app: RelayHubFixture;
  let ada: TestViewer;
  let terminalId: string;
  let bin: string;
  const viewers: TestViewer[] = [];

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    app = await startRelayHub();
    await enableRemoteAccess(app, relay, 'm1', relay.tokens.get('m1')!.daemonToken);
    bin = installStandInClaude(app.temp.home);
    const info = await app.api.call('terminal.create', { file: 'bash', args: ['--norc', '--noprofile'], cwd: app.temp.workspace, cols: 100, rows: 30 });
    terminalId = info.id;
    await app.api.call('relay.setShared', { terminalId, shared: true });
    ada = await connectViewer('Ada on her phone');
    await app.api.call('terminal.write', { id: terminalId, data: `${join(bin, 'claude')}\r` });
    await waitForAgent((agent) => agent?.state === 'idle', 'the stand-in to be idle');
  });

  after(async () => {
    for (const viewer of viewers) await viewer.close();
    await app?.stop();
    await relay?.close();
  });

  async function connectViewer(name: string): Promise<TestViewer> {
    const viewer = await TestViewer.connect(relay, 'm1', relay.tokens.get('m1')!.viewerToken, { name });
    viewers.push(viewer);
    await viewer.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: `${name} online` });
    return viewer;
  }

  const agentOf = (): AgentStatus | null => app.hub.ptyHost.get(terminalId)?.info.agent ?? null;
  const waitForAgent = (predicate: (agent: AgentStatus | null) => boolean, what: string) => pollUntil(() => (predicate(agentOf()) ? agentOf() : undefined), { timeoutMs: 15_000, what });
  const say = (line: string) => app.api.call('terminal.write', { id: terminalId, data: `${line}\r` });
  const screen = async () => (await app.hub.ptyHost.require(terminalId).readScreen()).lines.join('\n');

  const permissionRequest = (viewer: TestViewer, command: string, from = 0) =>
    viewer.waitFor((frame): frame is PermissionRequest => frame.type === 'permissionRequest' && (frame.toolInput as AgentPermissionToolInput).command === command, {
      what: `permissionRequest for ${command}`,
      from,
    });
  /** The result told to the answering viewer only (its own channel), or the settlement for everyone ("*"). */
  const permissionResult = (viewer: TestViewer, requestId: string, channel: 'own' | '*', from = 0) =>
    viewer.waitFor(
      (frame): frame is PermissionResponse => frame.type === 'permissionResponse' && frame.requestId === requestId && frame.channelId === (channel === '*' ? '*' : viewer.channelId),
      { what: `${channel} permissionResponse for ${requestId}`, from },
    );
  const questionResult = (viewer: TestViewer, requestId: string, channel: 'own' | '*', from = 0) =>
    viewer.waitFor(
      (frame): frame is QuestionResponse => frame.type === 'questionResponse' && frame.requestId === requestId && frame.channelId === (channel === '*' ? '*' : viewer.channelId),
      { what: `${channel} questionResponse for ${requestId}`, from },
    );
  /** An update saying the agent is in `state`, entered after `after` (an update of an older state may still come, up to one throttle interval late). */
  const agentUpdate = (viewer: TestViewer, state: string, from = 0, after = 0) =>
    viewer.waitFor((frame): frame is Updated => frame.type === 'agentTerminalUpdated' && frame.terminalId === terminalId && frame.agent?.state === state && frame.agent.since > after, {
      what: `agentTerminalUpdated ${state}`,
      from,
    });

  it('sends the permission prompt as permissionRequest; a viewer approves, the command runs, everyone is told and the state goes back', async () => {
    const mark = ada.frames.length;
    await say('run touch marker.txt');
    const request = await permissionRequest(ada, 'touch marker.txt', mark);
    assert.equal(request.toolName, 'Bash');
    assert.equal(request.channelId, '*');
    assert.equal(request.sessionId, 'switchboard:m1');
    const input = request.toolInput as AgentPermissionToolInput;
    const asking = agentOf()!;
    assert.equal(asking.state, 'needs-input');
    assert.equal(request.requestId, `agent:${terminalId}:${asking.since}`);
    assert.deepEqual(
      { kind: input.kind, reason: input.reason, terminalId: input.terminalId, agent: input.agent, since: input.since, options: input.options },
      {
        kind: 'agentPermission',
        reason: 'Bash: touch marker.txt',
        terminalId,
        agent: { kind: 'claude-code', label: 'Claude Code' },
        since: asking.since,
        options: ['1. Yes', '2. Yes, and don’t ask again for this command', '3. No'],
      },
    );
    // The pane's announcement says the agent waits, with why.
    const update = await agentUpdate(ada, 'needs-input', mark);
    assert.equal(update.status, 'ready');
    assert.deepEqual(update.readiness, { state: 'needs-input', source: 'agent:claude-code', matchedText: 'Bash: touch marker.txt', readyAt: rfc3339(asking.since) });
    assert.equal(update.agent?.prompt?.kind, 'permission');

    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });
    const result = await permissionResult(ada, request.requestId, 'own', mark);
    assert.equal(result.outcome, 'accepted');
    assert.equal(result.approved, true);
    const settled = await permissionResult(ada, request.requestId, '*', mark);
    assert.deepEqual({ outcome: settled.outcome, approved: settled.approved, decidedBy: settled.decidedBy }, { outcome: 'accepted', approved: true, decidedBy: 'Ada on her phone' });
    await pollUntil(() => existsSync(join(app.temp.workspace, 'marker.txt')), { what: 'the approved command to run in the pane' });
    // The person at the machine sees who answered, and how.
    assert.deepEqual(app.eventsOf('terminal.agentInput').at(-1), { id: terminalId, peer: 'Ada on her phone', text: 'Approve' });
    await agentUpdate(ada, 'idle', mark, asking.since);
    assert.match(await screen(), /Ran touch marker\.txt \(ran\)/);
    // The answered prompt stays on screen a moment after the keys went in: it is not sent again as new.
    assert.equal(ada.frames.filter((frame) => frame.type === 'permissionRequest' && frame.requestId === request.requestId).length, 1);
    // The relay forgot it: a viewer joining now gets no stale request.
    const late = await connectViewer('Late Larry');
    await late.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === terminalId, { what: 'the shared pane announced' });
    assert.equal(late.frames.filter((frame) => frame.type === 'permissionRequest').length, 0);
  });

  it('sends a question as question {question, options}; an answer naming no option is refused, an option’s label picks it', async () => {
    const mark = ada.frames.length;
    await say('ask Which colour should the button be? | Red | Green | Blue');
    const question = await ada.waitFor((frame): frame is Question => frame.type === 'question' && frame.terminalId === terminalId, { what: 'question', from: mark });
    assert.equal(question.question, 'Which colour should the button be?');
    assert.deepEqual(question.options, [{ label: 'Red' }, { label: 'Green' }, { label: 'Blue' }]);
    assert.equal(question.header, `Claude Code in ${app.hub.ptyHost.require(terminalId).info.name}`);
    assert.equal(question.channelId, '*');
    assert.equal(question.since, agentOf()!.since);

    ada.send('questionResponse', { channelId: ada.channelId, sessionId: question.sessionId, requestId: question.requestId, answer: 'Purple' });
    const refused = await questionResult(ada, question.requestId, 'own', mark);
    assert.equal(refused.outcome, 'refused');
    assert.match(refused.reason ?? '', /"Purple" is not one of the options \("Red", "Green", "Blue"\); nothing was typed/);
    assert.equal(agentOf()?.state, 'needs-input', 'the question still stands');

    const before = ada.frames.length;
    ada.send('questionResponse', { channelId: ada.channelId, sessionId: question.sessionId, requestId: question.requestId, answer: 'Green' });
    const answered = await questionResult(ada, question.requestId, 'own', before);
    assert.equal(answered.outcome, 'answered');
    const settled = await questionResult(ada, question.requestId, '*', mark);
    assert.deepEqual({ outcome: settled.outcome, decidedBy: settled.decidedBy }, { outcome: 'answered', decidedBy: 'Ada on her phone' });
    await pollUntil(async () => /You picked: Green/.test(await screen()), { what: 'the stand-in to get Green' });
    assert.deepEqual(app.eventsOf('terminal.agentInput').at(-1), { id: terminalId, peer: 'Ada on her phone', text: 'Green' });
    await waitForAgent((agent) => agent?.state === 'idle', 'idle after the answer');
    await agentUpdate(ada, 'idle', before, question.since!);
    assert.equal(ada.frames.filter((frame) => frame.type === 'question' && frame.requestId === question.requestId).length, 1, 'the answered question is not sent again');
  });

  it('refuses an answer to a prompt answered on the machine first, and types nothing', async () => {
    const mark = ada.frames.length;
    await say('run touch stale.txt');
    const request = await permissionRequest(ada, 'touch stale.txt', mark);
    // The person at the machine denies it first, with the app's own button.
    await app.api.call('agent.answer', { terminalId, answer: 'deny', expectSince: (request.toolInput as AgentPermissionToolInput).since });
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });
    const result = await permissionResult(ada, request.requestId, 'own', mark);
    assert.equal(result.outcome, 'refused');
    assert.equal(result.approved, false);
    assert.match(result.reason ?? '', /answered already|is gone|answered on the machine/);
    assert.match(result.reason ?? '', /nothing was typed/);
    // Everyone hears it went without a viewer's answer.
    const settled = await permissionResult(ada, request.requestId, '*', mark);
    assert.equal(settled.outcome, 'withdrawn');
    await waitForAgent((agent) => agent?.state === 'idle', 'idle after the local deny');
    assert.match(await screen(), /Denied; not run\./);
    // Nothing was typed: the next prompt asks for exactly this command (a stray "1" would have prefixed it).
    const next = ada.frames.length;
    await say('run touch after.txt');
    const after = await permissionRequest(ada, 'touch after.txt', next);
    assert.equal(existsSync(join(app.temp.workspace, 'stale.txt')), false, 'the refused approval ran nothing');
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: after.sessionId, requestId: after.requestId, approved: false });
    assert.equal((await permissionResult(ada, after.requestId, 'own', next)).outcome, 'rejected');
    await waitForAgent((agent) => agent?.state === 'idle', 'idle after the remote deny');
    assert.equal(existsSync(join(app.temp.workspace, 'after.txt')), false, 'deny ran nothing');
    // An answer to a request nobody sent is refused too.
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: after.sessionId, requestId: `agent:${terminalId}:1`, approved: true });
    const unknown = await permissionResult(ada, `agent:${terminalId}:1`, 'own', next);
    assert.equal(unknown.outcome, 'refused');
    assert.match(unknown.reason ?? '', /the prompt is gone/);
  });

  it('gives a viewer that joins later the pending prompt (from the relay), and lets it answer', async () => {
    let mark = ada.frames.length;
    await say('run touch late.txt');
    const request = await permissionRequest(ada, 'touch late.txt', mark);
    const bob = await connectViewer('Bob');
    const seen = await permissionRequest(bob, 'touch late.txt');
    assert.equal(seen.requestId, request.requestId);
    // …after the pane it belongs to, whose announcement says its agent waits.
    const announced = bob.frames.findIndex((frame) => (frame.type === 'agentTerminalStarted' || frame.type === 'agentTerminalUpdated') && frame.terminalId === terminalId && frame.agent?.state === 'needs-input');
    assert.ok(announced >= 0 && announced < bob.frames.indexOf(seen), 'the pane and its waiting agent come before the prompt');
    bob.send('permissionResponse', { channelId: bob.channelId, sessionId: seen.sessionId, requestId: seen.requestId, approved: true });
    assert.equal((await permissionResult(bob, seen.requestId, 'own')).outcome, 'accepted');
    // Ada's list loses it too, decided by Bob; Ada's late answer is refused.
    assert.equal((await permissionResult(ada, request.requestId, '*', mark)).decidedBy, 'Bob');
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: false });
    assert.equal((await permissionResult(ada, request.requestId, 'own', mark)).outcome, 'refused');
    await pollUntil(() => existsSync(join(app.temp.workspace, 'late.txt')), { what: 'Bob’s approval to run the command' });
    await waitForAgent((agent) => agent?.state === 'idle', 'idle');

    // A question too.
    mark = ada.frames.length;
    await say('ask Ship it now? | Yes | Not yet');
    const question = await ada.waitFor((frame): frame is Question => frame.type === 'question' && frame.terminalId === terminalId, { what: 'question', from: mark });
    const carol = await connectViewer('Carol');
    const carolSees = await carol.waitFor((frame): frame is Question => frame.type === 'question', { what: 'the pending question for Carol' });
    assert.equal(carolSees.requestId, question.requestId);
    carol.send('questionResponse', { channelId: carol.channelId, sessionId: carolSees.sessionId, requestId: carolSees.requestId, answer: '2' });
    assert.equal((await questionResult(carol, carolSees.requestId, 'own')).outcome, 'answered');
    await pollUntil(async () => /You picked: Not yet/.test(await screen()), { what: 'the stand-in to get "Not yet"' });
    // Settled on the relay too: one more viewer gets no question.
    const dave = await connectViewer('Dave');
    await dave.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === terminalId, { what: 'the shared pane announced to Dave' });
    assert.equal(dave.frames.filter((frame: RelayMessage) => frame.type === 'question' || frame.type === 'permissionRequest').length, 0);
  });

  it('withdraws the prompt from every viewer when the pane stops being shared', async () => {
    const mark = ada.frames.length;
    await say('run touch unshared.txt');
    const request = await permissionRequest(ada, 'touch unshared.txt', mark);
    await app.api.call('relay.setShared', { terminalId, shared: false });
    assert.equal((await permissionResult(ada, request.requestId, '*', mark)).outcome, 'withdrawn');
    ada.send('permissionResponse', { channelId: ada.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });
    assert.equal((await permissionResult(ada, request.requestId, 'own', mark)).outcome, 'refused');
    assert.equal(existsSync(join(app.temp.workspace, 'unshared.txt')), false);
    // Shared again: the prompt still on screen is sent again (a new request for the same prompt instance).
    const again = ada.frames.length;
    await app.api.call('relay.setShared', { terminalId, shared: true });
    const resent = await permissionRequest(ada, 'touch unshared.txt', again);
    assert.equal(resent.requestId, request.requestId);
    await app.api.call('agent.answer', { terminalId, answer: 'deny', expectSince: agentOf()!.since });
    assert.equal((await permissionResult(ada, request.requestId, '*', again)).outcome, 'withdrawn');
  });
});
