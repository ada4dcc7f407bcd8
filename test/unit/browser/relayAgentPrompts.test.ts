/** The remote view's answers to agents' prompts: which frames are agents', what an answer sends, and the machine's result. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RelayAgentPrompts } from '../../../src/browser/relayAgentPrompts.ts';
import { ApiError } from '../../../src/common/api/errors.ts';

const permission = {
  sessionId: 'switchboard:home',
  channelId: '*',
  requestId: 'agent:t-1:1000',
  toolName: 'Bash',
  toolInput: { kind: 'agentPermission', command: 'touch a', reason: 'Bash: touch a', options: ['1. Yes', '3. No'], terminalId: 't-1', terminalName: 'bash', agent: { kind: 'claude-code', label: 'Claude Code' }, since: 1000, askedAt: '' },
};
const question = { sessionId: 'switchboard:home', channelId: '*', requestId: 'agent:t-2:2000', question: 'Which?', options: [{ label: 'Red' }, { label: 'Green' }], terminalId: 't-2', since: 2000 };

function prompts(sent: unknown[], connected = true) {
  return new RelayAgentPrompts({ machineId: 'home', send: (frame) => (sent.push(frame), connected), answerTimeoutMs: 50 });
}

describe('RelayAgentPrompts', () => {
  it('takes agents’ prompts and leaves reviews and unknown tool inputs to the approvals', () => {
    const list = prompts([]);
    assert.equal(list.addPermission(permission), true);
    assert.equal(list.addPermission({ ...permission, requestId: 'rv-1', toolName: 'openDiff', toolInput: { path: '/a', diff: '' } }), false);
    assert.equal(list.addPermission({ ...permission, requestId: 'x', toolInput: { command: 'ls' } }), false);
    assert.equal(list.addQuestion(question), true);
    assert.equal(list.addQuestion({ ...question, terminalId: undefined }), false, 'a question that names no pane has nowhere to be answered');
    list.dispose();
  });

  it('answers a permission with permissionResponse and resolves on the machine’s result', async () => {
    const sent: unknown[] = [];
    const list = prompts(sent);
    list.addPermission(permission);
    const answered = list.answer({ terminalId: 't-1', answer: 'approve', expectSince: 1000 });
    assert.deepEqual(sent, [{ type: 'permissionResponse', fields: { sessionId: 'switchboard:home', requestId: 'agent:t-1:1000', approved: true } }]);
    await assert.rejects(list.answer({ terminalId: 't-1', answer: 'deny', expectSince: 1000 }), /an answer to this prompt is on its way/);
    assert.equal(list.result({ requestId: 'agent:t-1:1000', outcome: 'accepted' }), true);
    await answered;
    list.dispose();
  });

  it('picks a question’s option by its label, and rejects with the machine’s reason when it refused', async () => {
    const sent: unknown[] = [];
    const list = prompts(sent);
    list.addQuestion(question);
    await assert.rejects(list.answer({ terminalId: 't-2', answer: 'approve', expectSince: 2000 }), /is a question: pick one of its options/);
    await assert.rejects(list.answer({ terminalId: 't-2', answer: { option: 3 }, expectSince: 2000 }), /has 2 options, not 3/);
    const answered = list.answer({ terminalId: 't-2', answer: { option: 2 }, expectSince: 2000 });
    assert.deepEqual(sent, [{ type: 'questionResponse', fields: { sessionId: 'switchboard:home', requestId: 'agent:t-2:2000', answer: 'Green' } }]);
    list.result({ requestId: 'agent:t-2:2000', outcome: 'refused', reason: 'the prompt in terminal t-2 was answered already (nothing was typed)' });
    await assert.rejects(answered, (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS' && /answered already \(nothing was typed\)/.test(error.message));
    list.dispose();
  });

  it('refuses, sending nothing, an answer to a prompt that is gone or was replaced; times out without a result', async () => {
    const sent: unknown[] = [];
    const list = prompts(sent);
    list.addPermission(permission);
    await assert.rejects(list.answer({ terminalId: 't-1', answer: 'approve', expectSince: 999 }), /answered or replaced since you saw it \(nothing was sent\)/);
    // A newer prompt of the same pane replaces the older one.
    list.addPermission({ ...permission, requestId: 'agent:t-1:3000', toolInput: { ...permission.toolInput, since: 3000 } });
    await assert.rejects(list.answer({ terminalId: 't-1', answer: 'approve', expectSince: 1000 }), /replaced/);
    assert.equal(list.settle('agent:t-1:3000'), true);
    await assert.rejects(list.answer({ terminalId: 't-1', answer: 'approve', expectSince: 3000 }), /is gone — answered on home, or the agent moved on \(nothing was sent\)/);
    assert.deepEqual(sent, []);
    list.addPermission(permission);
    await assert.rejects(list.answer({ terminalId: 't-1', answer: 'deny', expectSince: 1000 }), (error: unknown) => error instanceof ApiError && error.code === 'TIMEOUT');
    list.dispose();
  });

  it('says the relay is closed when the answer cannot be sent', async () => {
    const list = prompts([], false);
    list.addPermission(permission);
    await assert.rejects(list.answer({ terminalId: 't-1', answer: 'approve', expectSince: 1000 }), (error: unknown) => error instanceof ApiError && error.code === 'CONNECTION_CLOSED');
    list.dispose();
  });
});
