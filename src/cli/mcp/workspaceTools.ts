/**
 * Agent-workspace tools for an orchestrating model: start worker agents the way a person does
 * (agent_start: a profile, a folder, a new worktree, a task), see what each changed
 * (worktree_list, worktree_diff) and finish their work (worktree_finish: merge, keep the branch,
 * discard). Each is one control-socket command (docs/protocol.md, "Agent workspaces").
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { WorkspaceLimits } from '../../common/api/workspaceContract.ts';
import { ControlConstants } from '../../common/constants.ts';
import { formatWorktreeTable } from '../commands/worktree.ts';
import type { ControlClient } from '../controlClient.ts';
import { guarded, text } from './toolResults.ts';

export const WorkspaceToolLimits = {
  /** worktree_diff text handed to a model at once: a big refactor's diff would fill its context. */
  maxDiffChars: 64 * 1024,
} as const;

const pathParam = z.string().min(1).max(4096).describe('The worktree\'s absolute path (from agent_start or worktree_list).');

export function registerWorkspaceTools(server: McpServer, client: ControlClient): void {
  server.registerTool(
    'agent_start',
    {
      title: 'Start an agent in its own pane (and git worktree)',
      description:
        'Start an agent CLI from a Switchboard profile (claude, codex, gemini, aider, opencode, or the user\'s own) in a new pane, the way a person does with New agent. With `worktree`, it works in a new git worktree on a new branch (default: named from the task) made from `base` (default: the folder\'s current branch); the repository\'s .worktreeinclude files are copied and its .switchboard/setup runs first. The task is passed as the agent\'s first prompt. Answers the terminal id (drive or read it with the terminal_* tools, watch it with agent_status) and the worktree. Follow its work with worktree_list / worktree_diff; finish with worktree_finish.',
      inputSchema: {
        profile: z.string().min(1).max(40).describe('Profile id, e.g. "claude".'),
        folder: z.string().min(1).max(4096).describe('Absolute path of the repository (or any folder, without worktree).'),
        worktree: z.boolean().optional().describe('Work in a new git worktree (default false).'),
        branch: z.string().min(1).max(WorkspaceLimits.branchChars).optional().describe('The worktree\'s new branch (implies worktree).'),
        base: z.string().min(1).max(WorkspaceLimits.branchChars).optional().describe('The branch to start from (implies worktree).'),
        prompt: z.string().min(1).max(WorkspaceLimits.promptChars).optional().describe('The task: the agent\'s first prompt.'),
        name: z.string().min(1).max(200).optional().describe('The pane\'s name (default: from the task).'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ profile, folder, worktree, branch, base, prompt, name }) =>
      guarded(async () => {
        const inWorktree = worktree === true || branch !== undefined || base !== undefined;
        const started = await client.call(
          'agent.start',
          {
            profile,
            folder,
            ...(inWorktree ? { worktree: { ...(branch ? { branch } : {}), ...(base ? { base } : {}) } } : {}),
            ...(prompt ? { prompt } : {}),
            ...(name ? { name } : {}),
          },
          { timeoutMs: ControlConstants.maxTimeoutMs },
        );
        const lines = [`Started ${started.name} (profile ${started.profile}) in terminal ${started.terminalId}, folder ${started.cwd}.`];
        if (started.worktree) lines.push(`Worktree ${started.worktree.path} on branch ${started.worktree.branch}, from ${started.worktree.base}.`);
        lines.push(`Ports ${started.portBase}-${started.portBase + WorkspaceLimits.portsPerAgent - 1} (PORT=${started.portBase}).`);
        return text(lines.join('\n') + '\n');
      }),
  );

  server.registerTool(
    'worktree_list',
    {
      title: 'Agents\' worktrees and their changes',
      description:
        'The git worktrees Switchboard made for agents: branch, base, commits ahead, changed files (+/- lines) and the agent pane working there. Optionally only one repository\'s (its main checkout path).',
      inputSchema: { repoRoot: z.string().min(1).max(4096).optional().describe('Only this repository\'s worktrees.') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ repoRoot }) =>
      guarded(async () => {
        const { worktrees } = await client.call('worktree.list', repoRoot ? { repoRoot } : {});
        const details = worktrees.flatMap((entry) =>
          entry.files.length === 0 ? [] : [`\n${entry.path}:`, ...entry.files.map((file) => `  ${file.status.padEnd(8)} ${file.path}  +${file.additions ?? '?'} -${file.deletions ?? '?'}${file.uncommitted ? '  (uncommitted)' : ''}`)],
        );
        return text(formatWorktreeTable(worktrees) + (details.length > 0 ? details.join('\n') + '\n' : ''));
      }),
  );

  server.registerTool(
    'worktree_diff',
    {
      title: 'What an agent changed in its worktree',
      description: `The unified diff of a worktree against its base: committed and uncommitted together (scope "all", default), or "committed" / "uncommitted" alone; \`file\` for one file. Cut at ${WorkspaceToolLimits.maxDiffChars / 1024} KiB (ask per file for more).`,
      inputSchema: {
        path: pathParam,
        scope: z.enum(['all', 'committed', 'uncommitted']).optional(),
        file: z.string().min(1).max(4096).optional().describe('Only this file, relative to the worktree.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ path, scope, file }) =>
      guarded(async () => {
        const diff = await client.call('worktree.diff', { path, ...(scope ? { scope } : {}), ...(file ? { file } : {}) });
        if (diff.files.length === 0) return text(`No changes against ${diff.base} (scope ${diff.scope}).\n`);
        const body = diff.files.map((entry) => entry.diff).join('');
        if (body.length <= WorkspaceToolLimits.maxDiffChars) return text(body);
        return text(`${body.slice(0, WorkspaceToolLimits.maxDiffChars)}\n[… cut at ${WorkspaceToolLimits.maxDiffChars / 1024} KiB; files: ${diff.files.map((entry) => entry.path).join(', ')}; ask for one with \`file\`]\n`);
      }),
  );

  server.registerTool(
    'worktree_finish',
    {
      title: 'Merge, keep or discard an agent\'s worktree',
      description:
        'Finish a worktree. "merge": commit what is uncommitted (message, default from the task), merge into the base (fast-forward when possible, else a merge commit), remove the worktree and branch; refused with nothing changed when it would conflict (the files are named) or the base\'s checkout has uncommitted changes. "branch": commit, remove the worktree, keep the branch. "discard": remove worktree and branch; refused (naming the work) when there are uncommitted changes or unmerged commits unless confirm is true. Any mode is refused (BUSY, naming the pane) while the worktree\'s agent works or waits for an answer, unless confirm is true. The agent pane there is closed.',
      inputSchema: {
        path: pathParam,
        mode: z.enum(['merge', 'branch', 'discard']),
        message: z.string().min(1).max(10_000).optional().describe('Commit message for uncommitted work.'),
        confirm: z.boolean().optional().describe('Also while its agent works or waits for an answer; discard: also with uncommitted or unmerged work.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    ({ path, mode, message, confirm }) =>
      guarded(async () => {
        const result = await client.call('worktree.finish', { path, mode, ...(message ? { message } : {}), ...(confirm ? { confirm } : {}) });
        const lines = [
          mode === 'merge' ? `Merged ${result.branch} into ${result.base} (${result.merge}, now ${result.mergedCommit}).` : mode === 'branch' ? `Kept branch ${result.branch}; the worktree is removed.` : `Discarded ${result.branch} and its worktree.`,
          ...(result.committed ? [`Committed the uncommitted work as ${result.committed}.`] : []),
          ...(result.closedTerminalId ? [`Closed the agent pane ${result.closedTerminalId}.`] : []),
        ];
        return text(lines.join('\n') + '\n');
      }),
  );
}
