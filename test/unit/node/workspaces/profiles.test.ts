/** The command line each built-in profile builds for a start and a resume, and how settings override and add profiles. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentProfileSetting } from '../../../../src/common/api/workspaceContract.ts';
import { buildAgentArgs, builtInProfiles, mergeProfiles } from '../../../../src/node/workspaces/profiles.ts';

const profile = (id: string) => builtInProfiles.find((entry) => entry.id === id)!;
const session = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('agent profiles', () => {
  it('Claude Code: asking permission mode, our session id, the task; resumed by that id', () => {
    assert.deepEqual(buildAgentArgs(profile('claude'), { mode: 'start', prompt: 'Fix it', sessionId: session }), [
      '--permission-mode',
      'default',
      '--session-id',
      session,
      'Fix it',
    ]);
    assert.deepEqual(buildAgentArgs(profile('claude'), { mode: 'resume', sessionId: session }), ['--permission-mode', 'default', '--resume', session]);
    const auto = { ...profile('claude'), reviewEditsInSwitchboard: false };
    assert.deepEqual(buildAgentArgs(auto, { mode: 'start', sessionId: session }), ['--session-id', session]);
  });

  it('the other CLIs: how each takes a task and resumes', () => {
    assert.deepEqual(buildAgentArgs(profile('codex'), { mode: 'start', prompt: 'Task' }), ['Task']);
    assert.deepEqual(buildAgentArgs(profile('codex'), { mode: 'resume' }), ['resume', '--last']);
    assert.deepEqual(buildAgentArgs(profile('gemini'), { mode: 'start', prompt: 'Task' }), ['--prompt-interactive', 'Task']);
    assert.deepEqual(buildAgentArgs(profile('gemini'), { mode: 'resume' }), ['--resume', 'latest']);
    assert.deepEqual(buildAgentArgs(profile('aider'), { mode: 'start', prompt: 'Task' }), [], 'aider has no interactive start with a prompt');
    assert.deepEqual(buildAgentArgs(profile('aider'), { mode: 'resume' }), ['--restore-chat-history']);
    assert.deepEqual(buildAgentArgs(profile('opencode'), { mode: 'start', prompt: 'Task' }), ['--prompt', 'Task']);
    assert.deepEqual(buildAgentArgs(profile('opencode'), { mode: 'resume' }), ['--continue']);
  });

  it('a task that starts with a dash is not taken for an option', () => {
    assert.deepEqual(buildAgentArgs(profile('codex'), { mode: 'start', prompt: '--version is wrong' }), ['--', '--version is wrong']);
  });

  it('a profile that cannot resume says so instead of starting fresh', () => {
    const custom = mergeProfiles([AgentProfileSetting.parse({ id: 'mine', name: 'Mine', command: 'mine' })]).at(-1)!;
    assert.throws(() => buildAgentArgs(custom, { mode: 'resume' }), /cannot resume/);
  });

  it('settings override a built-in profile by id (keeping its kind) and add custom ones after the built-in ones', () => {
    const merged = mergeProfiles([
      AgentProfileSetting.parse({ id: 'claude', name: 'Claude (work)', command: '/opt/claude/bin/claude', args: ['--model', 'opus'], reviewEditsInSwitchboard: false }),
      AgentProfileSetting.parse({ id: 'mine', name: 'Mine', command: 'mine', env: { API_BASE: 'http://localhost' } }),
    ]);
    assert.deepEqual(merged.map((entry) => entry.id), ['claude', 'codex', 'gemini', 'aider', 'opencode', 'mine']);
    const claude = merged[0]!;
    assert.equal(claude.kind, 'claude-code');
    assert.equal(claude.overridden, true);
    assert.equal(claude.command, '/opt/claude/bin/claude');
    assert.deepEqual(buildAgentArgs({ ...claude, resume: { kind: 'none' } }, { mode: 'start', prompt: 'x' }), ['--model', 'opus', 'x']);
    assert.equal(merged.at(-1)!.kind, 'custom');
    assert.deepEqual(merged.at(-1)!.env, { API_BASE: 'http://localhost' });
  });

  it('the settings schema refuses bad profiles', () => {
    assert.equal(AgentProfileSetting.safeParse({ id: 'Bad Id', name: 'x', command: 'x' }).success, false);
    assert.equal(AgentProfileSetting.safeParse({ id: 'ok', name: 'x', command: '' }).success, false);
    assert.equal(AgentProfileSetting.safeParse({ id: 'ok', name: 'x', command: 'x', env: { 'BAD-NAME': '1' } }).success, false);
    assert.equal(AgentProfileSetting.safeParse({ id: 'ok', name: 'x', command: 'x', unknown: 1 }).success, false);
  });
});
