import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import type { ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import {
  agentStateText,
  formatElapsed,
  isBlocking,
  isInterrupted,
  promptAnswers,
  waitingEntries,
  waitingNotification,
  waitingReason,
} from '../../../renderer/features/agents/agentFormat.ts';

const agent = (overrides: Partial<AgentStatus>): AgentStatus => ({
  kind: 'claude-code',
  label: 'Claude Code',
  state: 'working',
  since: 1000,
  reason: null,
  prompt: null,
  exitCode: null,
  ...overrides,
});

// Only the fields the list reads: the rest of a TerminalInfo does not matter to it.
const terminal = (id: string, name: string, status: AgentStatus | null): TerminalInfo => ({ id, name, agent: status }) as TerminalInfo;
const review = (id: string, createdAt: number): ReviewSummary => ({ id, title: `review ${id}`, createdAt }) as ReviewSummary;

describe('agent state wording', () => {
  it('says how long in seconds, then minutes, hours and days', () => {
    assert.equal(formatElapsed(0), '0 s');
    assert.equal(formatElapsed(12_400), '12 s');
    assert.equal(formatElapsed(59_999), '59 s');
    assert.equal(formatElapsed(60_000), '1 min');
    assert.equal(formatElapsed(4 * 60_000 + 59_000), '4 min');
    assert.equal(formatElapsed(2 * 3_600_000), '2 h');
    assert.equal(formatElapsed(2 * 3_600_000 + 5 * 60_000), '2 h 5 min');
    assert.equal(formatElapsed(3 * 86_400_000 + 1), '3 d');
    assert.equal(formatElapsed(-5000), '0 s', 'a clock a little behind the Hub’s never shows a negative time');
  });

  it('names each state, with the exit code when known', () => {
    assert.equal(agentStateText(agent({ state: 'working' })), 'working');
    assert.equal(agentStateText(agent({ state: 'needs-input' })), 'needs input');
    assert.equal(agentStateText(agent({ state: 'idle' })), 'done');
    assert.equal(agentStateText(agent({ state: 'exited', exitCode: 3 })), 'exited 3');
    assert.equal(agentStateText(agent({ state: 'exited', exitCode: null })), 'exited');
  });

  it('says "interrupted", not "done", for a turn cut short (the Hub’s reason starts with "Interrupted")', () => {
    assert.equal(agentStateText(agent({ state: 'idle', reason: 'Interrupted' })), 'interrupted');
    assert.equal(agentStateText(agent({ state: 'idle', reason: 'Interrupted — it was asking: Bash: rm -rf build' })), 'interrupted');
    assert.equal(agentStateText(agent({ state: 'idle', reason: 'Interruptedness is a word' })), 'done');
    assert.equal(agentStateText(agent({ state: 'idle', reason: 'Finished' })), 'done');
    assert.equal(isInterrupted(agent({ state: 'needs-input', reason: 'Interrupted' })), false);
    assert.deepEqual(waitingNotification('api-worker', agent({ state: 'idle', reason: 'Interrupted — it was asking: Bash: npm test' })), {
      title: 'Claude Code was interrupted',
      body: 'api-worker: Interrupted — it was asking: Bash: npm test',
    });
  });

  it('gives the agent’s reason, or what the state means when it gave none', () => {
    assert.equal(waitingReason(agent({ state: 'needs-input', reason: 'Bash: touch marker.txt' })), 'Bash: touch marker.txt');
    assert.equal(waitingReason(agent({ state: 'needs-input' })), 'Needs your input');
    assert.equal(waitingReason(agent({ state: 'idle' })), 'Finished its turn');
  });

  it('writes a notification naming the agent, the pane and the reason', () => {
    assert.deepEqual(waitingNotification('api-worker', agent({ state: 'needs-input', reason: 'Bash: npm test' })), {
      title: 'Claude Code needs you',
      body: 'api-worker: Bash: npm test',
    });
    assert.deepEqual(waitingNotification('docs', agent({ label: 'Codex', state: 'idle' })), { title: 'Codex finished its turn', body: 'docs: Finished its turn' });
  });

  it('offers Approve and Deny for a permission, a question’s options by number', () => {
    assert.deepEqual(
      promptAnswers({ kind: 'permission', toolName: 'Bash', options: ['1. Yes', '2. Yes, and don’t ask again', '3. No'] }).map((a) => [a.label, a.answer]),
      [
        ['Approve', 'approve'],
        ['Deny', 'deny'],
      ],
    );
    assert.deepEqual(
      promptAnswers({ kind: 'question', toolName: null, options: ['1. Postgres', '2) SQLite', 'Neither'] }).map((a) => [a.label, a.answer]),
      [
        ['Postgres', { option: 1 }],
        ['SQLite', { option: 2 }],
        ['Neither', { option: 3 }],
      ],
    );
  });
});

describe('Waiting for you', () => {
  it('lists agents that ask and pending reviews first, then agents done with their turn, each oldest first', () => {
    const entries = waitingEntries(
      [
        terminal('t1', 'build', agent({ state: 'working', since: 100 })),
        terminal('t2', 'api', agent({ state: 'idle', since: 300 })),
        terminal('t3', 'web', agent({ state: 'needs-input', since: 500, reason: 'Edit src/app.ts' })),
        terminal('t4', 'shell', null),
        terminal('t5', 'old', agent({ state: 'exited', since: 50, exitCode: 0 })),
      ],
      [review('r1', 400), review('r0', 200)],
    );
    assert.deepEqual(
      entries.map((entry) => (entry.kind === 'agent' ? entry.terminalName : entry.review.id)),
      ['r0', 'r1', 'web', 'api'],
    );
  });

  it('puts an agent blocked on a permission prompt above agents that finished long before', () => {
    const entries = waitingEntries(
      [
        terminal('t1', 'docs', agent({ state: 'idle', since: 100 })),
        terminal('t2', 'tests', agent({ state: 'idle', since: 200 })),
        terminal('t3', 'api', agent({ state: 'needs-input', since: 900, reason: 'Bash: npm test', prompt: { kind: 'permission' } as AgentStatus['prompt'] })),
        terminal('t4', 'web', agent({ state: 'needs-input', since: 600 })),
      ],
      [],
    );
    assert.deepEqual(
      entries.map((entry) => (entry.kind === 'agent' ? `${entry.terminalName}:${entry.agent.state}` : entry.review.id)),
      ['web:needs-input', 'api:needs-input', 'docs:idle', 'tests:idle'],
    );
    assert.deepEqual(entries.map(isBlocking), [true, true, false, false]);
  });

  it('gives a new wait of the same pane a new key, so it counts as a new row', () => {
    const [before] = waitingEntries([terminal('t1', 'api', agent({ state: 'needs-input', since: 10 }))], []);
    const [after] = waitingEntries([terminal('t1', 'api', agent({ state: 'idle', since: 20 }))], []);
    assert.notEqual(before?.key, after?.key);
  });
});
