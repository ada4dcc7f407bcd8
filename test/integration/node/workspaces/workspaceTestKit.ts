/**
 * Plumbing for the agent-workspace tests: real git repositories in a temp folder, a fake agent
 * program (a shell script that prints its argv and environment, then reads stdin), and a real Hub
 * with a custom profile that starts it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProfileSettingInput } from '../../../../src/common/api/workspaceContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';

export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).trim();
}

/** The first commit's files unless a test names its own: README.md `line 1`…`line 20`; .gitignore ignoring .env, node_modules, *.log. */
const defaultRepoFiles: Record<string, string> = {
  'README.md': Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join(''),
  '.gitignore': '.env\nnode_modules/\n*.log\n',
};

/** A repository on branch main with one commit of `files` (name → content; the default README.md and .gitignore unless given). */
export function makeRepo(parent: string, name = 'repo', files: Record<string, string> = defaultRepoFiles): string {
  const repo = join(parent, name);
  mkdirSync(repo, { recursive: true });
  gitIn(repo, 'init', '-q', '-b', 'main');
  gitIn(repo, 'config', 'user.name', 'Test');
  gitIn(repo, 'config', 'user.email', 'test@example.com');
  gitIn(repo, 'config', 'commit.gpgsign', 'false');
  for (const [file, content] of Object.entries(files)) writeFileSync(join(repo, file), content);
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', 'initial');
  return repo;
}

/**
 * The fake agent: prints `ARGV:[a][b]…`, its PORT and cwd, a ready line, then echoes each line it
 * reads as `GOT:<line>` (so a test can see the pane's input reach it).
 */
export function writeFakeAgent(dir: string): string {
  const path = join(dir, 'fake-agent');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      'printf "ARGV:"',
      'for arg in "$@"; do printf "[%s]" "$arg"; done',
      'printf "\\n"',
      'printf "PORT=%s BASE=%s COUNT=%s\\n" "$PORT" "$SWITCHBOARD_PORT_BASE" "$SWITCHBOARD_PORT_COUNT"',
      'printf "CWD=%s\\n" "$(pwd)"',
      'printf "FAKE-AGENT-READY\\n"',
      'while IFS= read -r line; do printf "GOT:%s\\n" "$line"; done',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

export interface WorkspaceTestHub extends TestHub {
  client: LocalHubClient;
  agentPath: string;
  /** The temp folder repositories are made in. */
  root: string;
}

export async function startWorkspaceHub(profiles: AgentProfileSettingInput[] = []): Promise<WorkspaceTestHub> {
  const test = await startTestHub({ clawsCompatSockets: false });
  const root = join(test.home, 'src');
  mkdirSync(root, { recursive: true });
  const agentPath = writeFakeAgent(test.home);
  const client = createLocalHubClient(test.hub, { kind: 'person', name: 'you' });
  await client.call('settings.update', {
    agentProfiles: [
      { id: 'fake', name: 'Fake agent', command: agentPath, args: ['--fake'], prompt: { kind: 'argument' }, resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] } },
      ...profiles,
    ],
  });
  return {
    ...test,
    client,
    agentPath,
    root,
    async dispose() {
      client.dispose();
      await test.dispose();
    },
  };
}

/** The visible text of a terminal, joined. */
export async function screenText(hub: TestHub, terminalId: string): Promise<string> {
  const screen = await hub.hub.ptyHost.require(terminalId).readScreen({ scrollback: true });
  return screen.lines.join('\n');
}
