/**
 * Claude Code's hooks as a source of agent state (src/node/agents/claudeHooks.ts), with real
 * processes: the hook command Switchboard passes in `--settings` run by a real sh with the hook's
 * JSON on stdin (as Claude Code runs it), the folder watched by a real Hub, and the state of a pane
 * whose agent (a process named `claude` that draws nothing the screen rules know) follows the
 * hooks: PermissionRequest → needs-input with the command, PostToolUse → working, Stop → idle,
 * a late idle_prompt notification → still idle. Garbage in the folder is ignored.
 * The real CLI invoking these hooks is covered where Switchboard starts it from a profile.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { hookCommand, hookSettings, stateOfHook } from '../../../../src/node/agents/claudeHooks.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';

/** What Claude Code does with a hook: its command through sh, the hook input as JSON on stdin. */
function runHook(settings: string, event: string, input: Record<string, unknown>): string {
  const hooks = (JSON.parse(settings) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> }).hooks;
  const command = hooks[event]![0]!.hooks[0]!.command;
  return execFileSync('sh', ['-c', command], { input: JSON.stringify({ session_id: 's', hook_event_name: event, ...input }), encoding: 'utf8' });
}

describe('Claude Code hooks as a source of agent state', () => {
  let t: TestHub;
  let person: LocalHubClient;
  let script: string;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    // An agent the table knows (a node script of the claude-code package) that draws nothing the screen rules recognise.
    const pkg = join(t.home, "it's", 'node_modules', '@anthropic-ai', 'claude-code');
    mkdirSync(pkg, { recursive: true });
    script = join(pkg, 'cli.js');
    writeFileSync(script, "process.stdout.write('a Claude Code that draws differently\\n');\nprocess.stdin.resume();\n");
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  it('maps each hook to a state, as the screen rules would say it', () => {
    const at = 5;
    assert.deepEqual(stateOfHook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'touch marker.txt\necho more' } }, at), { state: 'needs-input', reason: 'Bash: touch marker.txt', at });
    assert.deepEqual(stateOfHook({ hook_event_name: 'PermissionRequest', tool_name: 'Edit', tool_input: { file_path: 'src/app.ts' } }, at), { state: 'needs-input', reason: 'Edit src/app.ts', at });
    assert.deepEqual(stateOfHook({ hook_event_name: 'UserPromptSubmit' }, at), { state: 'working', reason: null, at });
    assert.deepEqual(stateOfHook({ hook_event_name: 'PostToolUse' }, at), { state: 'working', reason: null, at });
    assert.deepEqual(stateOfHook({ hook_event_name: 'Stop' }, at), { state: 'idle', reason: null, at });
    assert.deepEqual(stateOfHook({ hook_event_name: 'Notification', notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }, at), { state: 'idle', reason: null, at });
    assert.deepEqual(stateOfHook({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' }, at), {
      state: 'needs-input',
      reason: 'Claude needs your permission to use Bash',
      at,
    });
    assert.equal(stateOfHook({ hook_event_name: 'SessionStart' }, at), null);
    // The command quotes its folder: a data dir may hold a quote or a space.
    const odd = join(t.home, "it's a dir");
    mkdirSync(odd);
    execFileSync('sh', ['-c', hookCommand(odd)], { input: '{"hook_event_name":"Stop"}' });
    const written = readdirSync(odd);
    assert.equal(written.length, 1);
    assert.match(written[0]!, /^\d+\.\d+\.json$/);
    assert.equal(readFileSync(join(odd, written[0]!), 'utf8'), '{"hook_event_name":"Stop"}');
    // Only events that follow a turn; none that runs before every tool call.
    assert.deepEqual(Object.keys((JSON.parse(hookSettings('/x')) as { hooks: object }).hooks).sort(), ['Notification', 'PermissionRequest', 'PostToolUse', 'Stop', 'UserPromptSubmit']);
  });

  it('follows the hooks of a pane whose screen it cannot read, in a private folder removed with the pane', async () => {
    const { key, settings } = await t.hub.agentHooks.create();
    const info = await person.call('terminal.create', { file: process.execPath, args: [script], cwd: t.workspace, env: { PATH: '/usr/bin:/bin', HOME: t.home } });
    const agent = (): AgentStatus | null => t.hub.ptyHost.get(info.id)?.info.agent ?? null;
    const until = (what: string, test: (status: AgentStatus) => boolean) => pollUntil(() => { const status = agent(); return status && test(status) ? status : null; }, { what, timeoutMs: 10_000 });
    await until('the agent seen', (status) => status.kind === 'claude-code');

    // A hook that runs before the pane is bound (Claude Code's SessionStart-time hooks) is kept for it.
    assert.equal(runHook(settings, 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'touch marker.txt' } }), '', 'a hook prints nothing: output could decide a permission');
    const hookDirs = readdirSync(join(t.dataDir, 'agent-hooks'));
    assert.equal(hookDirs.length, 1);
    const dir = join(t.dataDir, 'agent-hooks', hookDirs[0]!);
    assert.equal(statSync(dir).mode & 0o777, 0o700, 'the folder is private');
    t.hub.agentHooks.bind(key, info.id);
    const asking = await until('needs-input from the hook', (status) => status.state === 'needs-input');
    assert.equal(asking.reason, 'Bash: touch marker.txt');
    assert.equal(asking.prompt, null, 'no options to answer with: those come from the screen');

    runHook(settings, 'PostToolUse', { tool_name: 'Bash' });
    await until('working after the tool ran', (status) => status.state === 'working');
    writeFileSync(join(dir, '99.1.json'), 'not json');
    runHook(settings, 'Stop', {});
    await until('idle at the turn end', (status) => status.state === 'idle');
    runHook(settings, 'Notification', { notification_type: 'idle_prompt', message: 'Claude is waiting for your input' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(agent()?.state, 'idle', 'the minute-late idle notification keeps it idle');
    await pollUntil(() => readdirSync(dir).length === 0, { what: 'every hook file read and removed' });

    await person.call('terminal.close', { id: info.id });
    await pollUntil(() => !existsSync(dir), { what: 'the folder removed with the pane' });
  });
});
