/** The agent table: which command lines run an agent, and the `extraAgents` setting's additions. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AgentDefinitionSetting } from '../../../../src/common/api/agentContract.ts';
import { matchAgentCommand } from '../../../../src/node/agents/agentProcess.ts';
import { agentTable, builtInAgents } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';

const kind = (argv: string[], table = builtInAgents) => matchAgentCommand(argv, table)?.kind ?? null;

describe('agent table', () => {
  it('has the nine agents of issue 19, each with a unique kind and a label', () => {
    assert.deepEqual(
      builtInAgents.map((agent) => agent.kind),
      ['claude-code', 'codex', 'gemini', 'aider', 'opencode', 'copilot', 'goose', 'amp', 'cursor-agent'],
    );
    assert.ok(builtInAgents.every((agent) => agent.label.length > 0));
  });

  it('recognises executables by argv[0] and agent scripts run by an interpreter', () => {
    assert.equal(kind(['claude']), 'claude-code');
    assert.equal(kind(['/home/me/.local/bin/claude', '--resume']), 'claude-code');
    assert.equal(kind(['codex', 'exec', 'fix it']), 'codex');
    assert.equal(kind(['node', '/usr/lib/node_modules/@google/gemini-cli/dist/index.js']), 'gemini');
    assert.equal(kind(['node', '--no-warnings', '/usr/local/bin/codex']), 'codex');
    assert.equal(kind(['/usr/bin/python3', '/home/me/.local/bin/aider', '--model', 'x']), 'aider');
    assert.equal(kind(['node', '/opt/x/node_modules/@anthropic-ai/claude-code/cli.js']), 'claude-code');
    assert.equal(kind(['cursor-agent']), 'cursor-agent');
  });

  it('a shell, an editor or a tool naming an agent in its arguments is no agent', () => {
    assert.equal(kind(['bash']), null);
    assert.equal(kind(['vim', 'claude.md']), null);
    assert.equal(kind(['grep', '-r', 'codex', '.']), null);
    assert.equal(kind(['npm', 'run', 'build']), null);
    assert.equal(kind(['node', 'build.js', 'claude']), null, 'only the script counts, not its arguments');
    assert.equal(kind(['python3']), null);
    assert.equal(kind([]), null);
  });

  it('the extraAgents setting adds agents (or replaces a built-in) with their own screen patterns', () => {
    const setting = AgentDefinitionSetting.parse({ kind: 'acme', label: 'Acme Agent', commands: ['acme'], scripts: ['@acme/agent/'], screen: { working: ['Thinking…'], needsInput: ['^Allow .+\\? \\[y/n\\]'] } });
    const table = agentTable([setting]);
    assert.equal(kind(['acme'], table), 'acme');
    assert.equal(kind(['node', '/x/node_modules/@acme/agent/main.js'], table), 'acme');
    assert.equal(kind(['claude'], table), 'claude-code');
    const screen = table[0]!.screen!;
    assert.deepEqual(readAgentScreen(screen, ['Allow rm -rf build? [y/n]']), { state: 'needs-input', reason: 'Allow rm -rf build? [y/n]', prompt: null, answers: null });
    assert.equal(readAgentScreen(screen, ['Thinking…'])?.state, 'working');
    const replaced = agentTable([AgentDefinitionSetting.parse({ kind: 'codex', label: 'My Codex', commands: ['my-codex'] })]);
    assert.equal(kind(['codex'], replaced), null);
    assert.equal(kind(['my-codex'], replaced), 'codex');
  });

  it('refuses a setting with a broken pattern or a path as command, saying which', () => {
    const broken = AgentDefinitionSetting.safeParse({ kind: 'x', label: 'X', commands: ['x'], screen: { working: ['(unclosed'] } });
    assert.equal(broken.success, false);
    assert.match(broken.error!.issues[0]!.message, /not a valid regular expression/);
    const path = AgentDefinitionSetting.safeParse({ kind: 'x', label: 'X', commands: ['/usr/bin/x'] });
    assert.match(path.error!.issues[0]!.message, /file name, without "\/"/);
    assert.equal(AgentDefinitionSetting.safeParse({ kind: 'Bad Kind', label: 'X', commands: ['x'] }).success, false);
  });
});
